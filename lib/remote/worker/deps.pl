# The worker program: dependencies, installed with the project's own tool from its lock or requirements file
# (lib/run/deps.ts decides what), again only when that file changed — or when the installed folder no longer
# matches what the install left (a package deleted there): its names are compared with a fingerprint taken
# right after the install, so a broken node_modules or .venv on the worker is repaired, not trusted. A failed install
# says what it was made from and the installer's first lines (`depfail`) before the refusal. A slot whose
# dependencies are missing or stale first takes them from a sibling slot that installed them from the same inputs.
our ($deps_start, $deps_end);

# The names under a dependency folder, to a depth: what an install leaves and a run does not change (caches and
# compiled bytecode that tools write there at run time are left out).
sub fingerprint {
  my ($root, $depth) = @_;
  return 'none' unless -d $root && !-l $root;
  my $md5 = Digest::MD5->new;
  my @todo = (['', 0]);
  while (@todo) {
    my ($rel, $d) = @{pop @todo};
    opendir(my $dh, length $rel ? "$root/$rel" : $root) or next;
    my @names = sort grep { $_ ne '.' && $_ ne '..' && $_ ne '__pycache__' && !/\.py[co]$/ && !($d == 0 && /^\.(?!bin$|pnpm$)/) } readdir $dh;
    closedir $dh;
    for my $n (@names) {
      my $p = length $rel ? "$rel/$n" : $n;
      $md5->add("$p\0");
      push @todo, [$p, $d + 1] if $d + 1 < $depth && -d "$root/$p" && !-l "$root/$p";
    }
  }
  return $md5->hexdigest;
}

# The first three lines of an installer's output that say something (of those that name an error, when some do), colour codes and carriage-return redraws
# left out, as one line.
sub first_lines {
  my ($text) = @_;
  $text =~ s/\e\[[0-9;?]*[A-Za-z]//g;
  # (A line that is only a tool's prefix, as npm's empty "npm error", says nothing.)
  my @lines = grep { /\S/ && !/^\s*\S*\s*(err(or)?|ERR!)\s*:?\s*$/i } map { my @p = split /\r/, $_; $p[-1] // '' } split /\n/, $text;
  s/[^\x20-\x7e]/?/g for @lines;
  s/^\s+|\s+$//g for @lines;
  # The lines that say what went wrong, when some do (npm prints the script it ran first, pip its progress).
  my @errors = grep { /\b(err(or)?|fail(ed|ure)?|fatal|cannot|could not|not found|no matching)\b/i } @lines;
  @lines = @errors if @errors;
  return join(' / ', map { length > 200 ? substr($_, 0, 200) . '...' : $_ } @lines[0 .. ($#lines < 2 ? $#lines : 2)]);
}

# A program run with nothing in and nothing out (stdout is the session's frames); true when it exited 0.
sub quietly {
  my $pid = fork;
  return 0 unless defined $pid;
  if (!$pid) {
    open(STDIN, '<', '/dev/null');
    open(STDOUT, '>', '/dev/null');
    open(STDERR, '>', '/dev/null');
    exec { $_[0] } @_;
    exit 127;
  }
  waitpid($pid, 0);
  return $? == 0;
}

sub remove_all { quietly('rm', '-rf', '--', $_) for grep { -e $_ || -l $_ } @_ }

# A whole copy of a folder, never links to it: reflinks where the file system makes them (GNU cp, APFS's clonefile
# through macOS cp -c), else a plain copy.
sub copy_folder {
  my ($from, $to) = @_;
  for my $way ($^O eq 'darwin' ? (['-c', '-R', '-p'], ['-R', '-p']) : (['-a', '--reflink=auto'], ['-a'], ['-R', '-p'])) {
    return 1 if quietly('cp', @$way, '--', $from, $to);
    remove_all($to);
  }
  return 0;
}

# In a copied dependency folder, what names the folder it came from (a venv's scripts' #! lines and activate
# scripts, its pyvenv.cfg, .pth files, direct_url.json, links) is made to name this slot's folder: links by their
# text, files found by grep (the files are not all read here), text files only, small ones.
sub rewrite_paths {
  my ($top, $from, $to) = @_;
  my (@todo, @files) = ($top);
  while (@todo) {
    my $d = pop @todo;
    opendir(my $dh, $d) or next;
    for my $n (grep { $_ ne '.' && $_ ne '..' } readdir $dh) {
      my $p = "$d/$n";
      if (-l $p) {
        my $t = readlink $p;
        next unless defined $t && index($t, "$from/") == 0;
        unlink $p;
        symlink($to . substr($t, length $from), $p);
      } elsif (-d _) {
        push @todo, $p;
      } elsif (-f _) {
        push @files, $p;
      }
    }
    closedir $dh;
  }
  my @named;
  if (open(my $grep, '-|', 'grep', '-rlsF', '--null', '--', $from, $top)) {
    local $/ = "\0";
    @named = map { chomp; $_ } <$grep>;
    # grep's 2 is trouble (not there, say): then each file is read.
    @named = @files unless close($grep) || $? >> 8 == 1;
  } else {
    @named = @files;
  }
  for my $p (@named) {
    next if -l $p || !-f _ || -s _ > 4_000_000;
    open(my $fh, '<:raw', $p) or next;
    my $text = do { local $/; <$fh> } // '';
    close $fh;
    next if index($text, $from) < 0 || index(substr($text, 0, 8192), "\0") >= 0;
    $text =~ s/\Q$from\E(?=[\/"'\s:]|$)/$to/g;
    my @st = stat $p;
    if (open(my $out, '>:raw', "$p.sparehand.$$")) {
      print $out $text;
      close $out;
      chmod($st[2] & 07777, "$p.sparehand.$$");
      rename("$p.sparehand.$$", $p) or unlink "$p.sparehand.$$";
    }
  }
}

# The dependencies of this slot from a sibling slot whose record says it installed them from the same inputs (the
# same hash: the files the install read and its command; the same worker, so the same platform and tools), still as
# that install left them (its fingerprint, before and after the copy: a command of that slot may be changing them
# meanwhile). Copied whole, so no command in one slot changes another's. The sibling's number, or nothing.
sub deps_from_sibling {
  my ($stamp, $hash, $target, $depth) = @_;
  (my $slots = $root_dir) =~ s{/[^/]+$}{};
  opendir(my $dh, $slots) or return;
  my @siblings = sort { $a <=> $b } grep { /^\d+$/ && $_ ne $folder } readdir $dh;
  closedir $dh;
  for my $m (@siblings) {
    open(my $fh, '<', "$slots/$m.deps.$stamp") or next;
    my $l = <$fh> // '';
    close $fh;
    chomp $l;
    my ($was, $fp) = split / /, $l;
    next unless ($was // '') eq $hash && length($fp // '') && $fp ne 'none';
    my $from = "$slots/$m/$target";
    next unless -d $from && !-l $from && fingerprint($from, $depth) eq $fp;
    my $tmp = "$target.sparehand-copy.$$";
    remove_all($tmp);
    next unless copy_folder($from, $tmp);
    # (Build caches a tool keeps there are that slot's own.)
    remove_all("$tmp/.cache");
    unless (fingerprint($from, $depth) eq $fp && fingerprint($tmp, $depth) eq $fp) { remove_all($tmp); next }
    rewrite_paths($tmp, "$slots/$m", $root_dir);
    remove_all($target);
    unless (rename($tmp, $target)) { remove_all($tmp); next }
    return $m;
  }
  return;
}

sub install_deps {
  my ($top) = @_;
  for my $entry (@{$many{dep}}) {
    my ($ddir, $stamp, $hash, $folder_spec, $note, $install) = split /\t/, $entry, 6;
    next unless defined $install;
    my ($depdir, $depth) = split /:/, $folder_spec;
    my $where = $ddir eq '.' ? '' : " in $ddir";
    my $sfile = "../$folder.deps.$stamp";
    my ($was, $fp) = ('', '');
    if (open(my $fh, '<', $sfile)) { my $l = <$fh> // ''; close $fh; chomp $l; ($was, $fp) = split / /, $l }
    $fp //= '';
    my $target = !length($depdir // '') ? '' : $ddir eq '.' ? $depdir : "$ddir/$depdir";
    if ($was eq $hash) {
      next if !length $target || fingerprint($target, $depth || 2) eq $fp;
      print STDERR "sparehand: the dependencies installed on the worker$where changed since their install ($target); installing them again\n";
    }
    put('phase', 'deps');
    my $in = $ddir eq '.' ? '' : " in $ddir";
    my $why = length($note // '') ? " ($note)" : '';
    $deps_start //= Time::HiRes::time();
    my $t0 = Time::HiRes::time();
    # "sparehand status" shows the copy or the install, not the command, while it runs (the record is put back after).
    slot_record("copying dependencies$in from another slot") if length $target;
    my $m = length $target ? deps_from_sibling($stamp, $hash, $target, $depth || 2) : undef;
    if (defined $m) {
      printf STDERR "sparehand: dependencies on the worker$where copied from slot %s, which installed them from the same files (%.1fs)\n", $m, Time::HiRes::time() - $t0;
    } else {
      slot_record("installing dependencies$in ($install)");
      print STDERR "sparehand: installing dependencies on the worker$where$why: $install\n";
      -d $ddir or refuse("cannot enter $ddir on the worker");
      my $st = run_group($install, $ddir, 'install');
      exit 0 unless defined $st;
      # Ctrl-C (or QUIT) at the terminal: stopped, not failed.
      exit $st if $mode eq 'tty' && ($st == 130 || $st == 131);
      if ($st != 0) {
        # What it was made from (the hash) and what the installer said first: sparehand remembers both, and does not
        # try the same install again (lib/run/failed-installs.ts).
        my $said = first_lines($install_head);
        put('depfail', "$hash\n$said");
        refuse("installing dependencies failed on the worker (exit $st): $install" . (length $said ? "; it said: $said" : ''));
      }
    }
    my $now = length $target ? fingerprint($target, $depth || 2) : '';
    if (open(my $fh, '>', "$sfile.$$")) { print $fh "$hash $now\n"; close $fh; rename("$sfile.$$", $sfile) }
    $deps_end = Time::HiRes::time();
  }
  slot_record('') if defined $deps_start;
}
