# The worker program's flow, per mode (the job's `mode`):
#   pipe  claim a slot → the owner's login environment → wait for `go` (the project has been sent meanwhile) →
#         `root` (the copy's absolute folder) → sparehand's own changes to the copy (`del`, `put`, then `start`) →
#         dependencies → checks → `anc`, `plat` (the worker's platform) → the tree before → the command, its stdout
#         in `out` frames and its stderr in `err` frames → `ran STATUS DEPS` →
#         what it changed → `end` → wants
#   hold  for a terminal run: claim a slot, take `go` and the changes, write the job for the terminal session to a
#         private file and say `ready PATH`; on `results`, pass on what that session wrote; hold the slot until
#         sparehand goes away
#   tty   (started by `ssh -tt` with the job file) the same as pipe from the login environment on, the command in
#         the foreground of the terminal, the results written to `<folder>.results`
# Anything that keeps the command from starting is a `refused` frame (and exit 125), so sparehand can tell it
# from the command's own failure.
unless (eval { require Time::HiRes; require Digest::MD5; require Cwd; 1 }) {
  refuse("the worker's perl lacks Time::HiRes or Digest::MD5, which sparehand needs to find what the command changed (install perl's standard modules there: the package perl)");
}
$shell = on_path('bash') ? 'bash' : 'sh';
$dir = $job{dir} = absolute_folder($dir);
my $key = $job{key};
my $root = "$dir/$key/$folder";
$root_dir = $root;
claim() unless $mode eq 'tty';
my $copy = $job{warm} && $mode ne 'tty' ? copy_state($root, $folder) : '';
put('copy', $copy) if length $copy;
login_env() unless $mode eq 'hold';

sub safe_rel { my ($p) = @_; return length($p) && $p !~ m{^/} && !grep { $_ eq '' || $_ eq '.' || $_ eq '..' } split m{/}, $p, -1 }
sub parents_of { my @parts = split m{/}, $_[0]; pop @parts; my $d = ''; for (@parts) { $d .= length($d) ? "/$_" : $_; if (-l $d || (-e _ && !-d _)) { unlink $d } mkdir $d unless -d $d } }

# sparehand's own changes to the copy, before anything runs: what was deleted or changed here in paths rsync does
# not send (the ancestor: lib/sync/ancestor.ts), and on a warm run the few files changed here. With $note, what each
# left is noted the moment it is made (own_entries): a change after that is not taken for sparehand's own.
my ($own_stat, $own_delta, $own_maxc) = ({}, {}, 0);
sub note_own {
  my ($s, $e, $c) = own_entries(@_);
  @$own_stat{keys %$s} = values %$s;
  @$own_delta{keys %$e} = values %$e;
  $own_maxc = $c if $c > $own_maxc;
}
sub own_changes {
  my ($note) = @_;
  while (my ($type, $payload) = frame()) {
    return 1 if $type eq 'start';
    if ($type eq 'del') {
      next unless safe_rel($payload);
      if (-d $payload && !-l $payload) { rmdir $payload } else { unlink $payload }
      note_own($payload) if $note;
    } elsif ($type eq 'put') {
      my ($head, $p) = split /\n/, $payload, 2;
      my ($m, $mtime, $size) = split / /, $head;
      my $ok = defined $p && safe_rel($p);
      my $tmp = "$root/../$folder.put.$$";
      open(my $fh, '>:raw', $tmp) or $ok = 0;
      my $left = $size // 0;
      my $md5 = Digest::MD5->new;
      while ($left > 0) {
        my ($t, $data) = frame();
        return 0 unless defined $t && $t eq 'dat';
        print $fh $data if $ok;
        $md5->add($data) if $note;
        $left -= length $data;
      }
      if ($ok) {
        close $fh;
        parents_of($p);
        if (-d $p && !-l $p) { rmdir $p }
        chmod(oct($m) & 0777, $tmp);
        if (defined &Time::HiRes::utime) { Time::HiRes::utime($mtime, $mtime, $tmp) } else { utime($mtime, $mtime, $tmp) }
        rename($tmp, $p) or unlink $tmp;
        # (What was written, as written: not read back, where a process may already have changed it.)
        note_own($p, [$md5->hexdigest, $size, $mtime]) if $note;
      } else { unlink $tmp }
    }
  }
  return 0;
}

# The copy's absolute folder, as the command will see it (its physical path), and as the login folder names it
# when that differs (a link on the way): sparehand shows either as the project's root here (lib/remote/root-rewrite.ts).
sub root_names {
  my $real = Cwd::getcwd();
  return '' unless defined $real;
  my $named = $root =~ m{^/} ? $root : (($ENV{HOME} // '') =~ m{^/} ? "$ENV{HOME}/$root" : $real);
  $named =~ s{/+}{/}g;
  1 while $named =~ s{/\./}{/};
  $named =~ s{/$}{};
  return $named eq $real ? $real : "$real\n$named";
}

# 'go' says 'unsent' when nothing was sent to the copy since the claim but the changes that follow it.
my $unsent;
if ($mode ne 'tty') {
  my ($type, $how) = frame();
  exit 0 unless defined $type && $type eq 'go';
  $unsent = $how eq 'unsent';
  chdir $root or refuse("cannot enter $root on the worker");
  put('root', root_names());
  own_changes($copy =~ /^same / && $unsent) or exit 0;
}

if ($mode eq 'hold') {
  # The terminal session's job: this program and the job, in a file only this user can read (the job never
  # travels in an argument, which every user of the worker could read).
  my $jobs = "$dir/.jobs";
  mkdir $jobs, 0700;
  chmod 0700, $jobs;
  my $file = "$jobs/" . random_hex();
  # The terminal session's frames are sealed with a key of its own (its job is read and deleted before the command
  # starts): the results file is this user's, and only what it sealed is passed on.
  my $tty_key = random_hex() . random_hex();
  my @tty_pads = seal_pads($tty_key);
  my %tty = (%job, mode => 'tty', slot => $slot, claimed => $claimed_at, seal => $tty_key);
  my $body = join('', map { "$_\0$tty{$_}\0" } keys %tty) . join('', map { my $k = $_; map { "$k\0$_\0" } @{$many{$k}} } keys %many);
  sysopen(my $fh, $file, O_WRONLY | O_CREAT | O_EXCL, 0600) or refuse("cannot write the terminal run's job on the worker: $!");
  print $fh length($program), "\n", $program, 'job ', length($body), "\n", $body;
  close $fh;
  put('ready', $file);
  while (my ($type) = frame()) {
    next unless $type eq 'results';
    my $res = "$root/../$folder.results";
    # Passed on frame by frame, each checked against the terminal session's seal and sealed again by this one.
    # Results that are missing, cut short or not sealed by it say nothing of the run: its fate is unknown.
    my ($buf, $bad, $n_tty, $ended) = ('', 0, 0, 0);
    if (open(my $rf, '<:raw', $res)) {
      while (!$bad && sysread($rf, $buf, 1048576, length $buf)) {
        while (!$bad) {
          my $nl = index($buf, "\n");
          if ($nl < 0) { $bad = 1 if length($buf) > 80; last }
          my ($t, $n, $s) = substr($buf, 0, $nl) =~ /^([a-z]{1,16}) (\d{1,10}) ([0-9a-f]{32})$/;
          if (!defined $s || $n > 8388608) { $bad = 1; last }
          last if length($buf) < $nl + 1 + $n;
          my $payload = substr($buf, $nl + 1, $n);
          if (seal_of(@tty_pads, $n_tty++, $t, $payload) ne $s) { $bad = 1; last }
          put($t, $payload);
          $ended = 1 if $t eq 'end' || $t eq 'refused';
          substr($buf, 0, $nl + 1 + $n) = '';
        }
      }
      close $rf;
      unlink $res;
    }
    # (Whole: up to their end, or a refusal. Cut short, as a command can cut them before its start is in them, the
    # run is not taken for one that never ran.)
    put('forged', "the terminal session's results on the worker are not whole or not its own") if $bad || !$ended || length $buf;
    put('done', '');
  }
  unlink $file;
  exit 0;
}

if ($mode eq 'tty') {
  chdir $root or refuse("cannot enter $root on the worker");
  my $res = "$root/../$folder.results";
  unlink $res;
  sysopen(my $rf, $res, O_WRONLY | O_CREAT | O_EXCL, 0600) or refuse("cannot write the results on the worker: $!");
  binmode $rf;
  $OUT = $rf;
}

my $top = Cwd::getcwd() // $root;
command_env("$top/..", $top);
my $tree = "../$folder.tree";
install_deps($top);
# VIRTUAL_ENV never names a folder the worker does not have (nothing here said how to make it): not run with
# another Python's packages.
refuse("the virtual environment active here ($job{venv}) is not in the worker's copy, and nothing here says how to make it there") if length($job{venv} // '') && !-d "$top/$job{venv}/bin";
my $rel = $job{rel};
-d $rel or refuse("cannot enter $rel on the worker");
check_programs($rel);
my $gen_file = "../$folder.gen";
my $gen = '';
if (open(my $g, '<', $gen_file)) { $gen = <$g> // ''; chomp $gen; close $g }
put('anc', length($job{gen} // '') && $gen eq $job{gen} ? 'same' : 'lost');
# This machine's platform (OS, architecture, C library), which the client compares with its own (lib/platform/).
put('plat', platform_line());
my $watch = $job{watch};
my ($before, $maxc, $unlike, $quick, $changes);
# The record of the last run, read only when something changed (100,000 entries take a tenth of a second).
my $record;
my $load = sub { $record //= load_tree($tree) };
sub mtime_of { my @s = Time::HiRes::stat($_[0]); return @s ? $s[9] : undef }
if ($watch) {
  # The markers: <folder>.tree.done, made once the last command had ended, before its changes were looked at;
  # .ended, once they were in the record (the run ended); .mark, before what the copy holds was looked at this time;
  # .prev, the last .done while this run's command runs; .since, an older sparehand's .ended (which reads no log of
  # the record: after a run of this one it finds no .since and walks the whole copy).
  my %t = map { $_ => mtime_of("$tree.$_") } qw(done ended since prev);
  my $ended = defined $t{ended} && defined $t{done} && $t{ended} > $t{done};
  if ($copy =~ /^same / && $unsent && $ended && !defined $deps_start && -s $tree && rename("$tree.done", "$tree.prev")) {
    # Nothing in the copy changed since the last run's command ended (copy_state: no ctime past .done), and since the
    # claim nothing but sparehand's own changes, whose paths are known: the record with them is what it holds. What
    # changes in it from .done on, at those paths too (a process an earlier command left), is the command's: the
    # walk after it starts from .prev. (A run that stops from here on leaves no .done: the next one walks.)
    tick_past("$tree.tick", $own_maxc) if %$own_stat;
    $quick = 2;
  } else {
    # What the copy holds before the command: the record of the last run brought up to date with what changed
    # since (find: only those paths are looked at), or on a first run (no record) the whole tree walked. Since the
    # last .done when that run ended, else since the oldest marker there is (a run stopped before its record was
    # saved, whose command's changes are not in it).
    my $ref = $ended ? 'done' : (sort { $t{$a} <=> $t{$b} } grep { defined $t{$_} } qw(ended since prev done))[0];
    # (The marker is made before the walk: whatever changes from now on, where find has been too, has a newer ctime.)
    my $since = -s $tree && (defined $t{ended} || defined $t{since}) && fresh_marker("$tree.mark") ? newer_than("$tree.$ref") : undef;
    if (defined $since) {
      if (@$since) {
        $changes = changed_entries($load->(), $since);
        apply_delta($record, $changes);
      }
      $quick = 1;
    } else {
      ($before, $maxc, $unlike) = walk($load->());
      tick_past("$tree.tick", $maxc);
    }
  }
}
# The copy's watcher (watch.pl), for the next runs: started unless one lives.
watch_start($top, "$top/../$folder.watch") if $watch && $mode eq 'pipe';
start_services($top);
put('phase', 'run');
my $status = $mode eq 'tty' ? run_foreground($job{command}, $rel) : run_group($job{command}, $rel, 'frames');
stop_services();
exit 0 unless defined $status;
my $deps = defined $deps_start ? sprintf('%.3f:%.3f', $deps_start, $deps_end // $deps_start) : '';
put('ran', "$status $deps");
# What a warm run asks (claim.pl copy_state): a change after this, the command's last ones aside, is not in the
# report. Made before the report is sent, so it is there by the time sparehand ends.
fresh_marker("$tree.done") if $watch;
my $sent = [];
if ($watch) {
  my $kept = 1;
  # What the watcher saw since it was asked before the command (all the report needs), else what find lists.
  my $seen = $quick && $watch_seen ? watch_take("$top/../$folder.watch") : undef;
  my $newer = $seen ? watch_candidates($seen) : $quick ? newer_than($quick == 2 ? "$tree.prev" : "$tree.mark") : undef;
  $changes = $own_delta if $quick && $quick == 2;
  if (defined $newer) {
    # (After sparehand's own changes alone, nothing of the record is read.)
    my $cands = $quick == 2 ? not_own($newer, $own_stat) : $newer;
    apply_delta($load->(), $own_delta) if @$cands && $quick == 2;
    my $delta = @$cands ? changed_entries($load->(), $cands) : {};
    $sent = report($record // {}, $delta, [keys %$delta]);
    apply_delta($record, $delta) if %$delta;
    $kept = record_changes($tree, { %{$changes // {}}, %$delta }, $record);
  } else {
    apply_delta($load->(), $changes) if $quick && $quick == 2;
    $before //= $load->();
    my ($after, undef, $changed) = walk($before);
    $sent = report($before, $after);
    $kept = save_tree($tree, $after) if $changed || $unlike || %{$changes // {}};
  }
  # The next run looks only at what changes after this; when the record could not be written, at everything.
  if ($kept) { fresh_marker("$tree.ended") } else { unlink "$tree.ended" }
  unlink "$tree.since";
  unlink "$tree.prev";
} else { put('end', 0) }
if (length($job{newgen} // '') && open(my $g, '>', "$gen_file.$$")) { print $g "$job{newgen}\n"; close $g; rename("$gen_file.$$", $gen_file) }
if ($mode eq 'tty') { close $OUT; exit $status }
answer_wants($sent);
exit 0;
