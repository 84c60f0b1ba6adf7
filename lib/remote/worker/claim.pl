# The worker program: claiming a slot. Slots are counted on the worker itself, so several machines sharing it
# never use one slot at once: the session holds a flock on `<dir>/.slots.d/<n>.lock` until it ends (a dropped
# connection frees it at once), and `<n>.run` says who holds it and what it is doing before its command (`sparehand
# status`, worker-slots.ts SLOT_STATUS). The count is the worker's own `<dir>/.slots`, written by `worker add --slots`
# or, when missing, by a first run.
use Fcntl qw(:flock O_WRONLY O_CREAT O_EXCL);
our $lock;
# The slot this run holds and since when: claimed here, or (terminal mode) by the holding session, whose job says.
our ($slot, $claimed_at);
($slot, $claimed_at) = @job{qw(slot claimed)} if $mode eq 'tty' && ($job{slot} // '') =~ /^\d+$/ && ($job{claimed} // '') =~ /^\d+$/;
# <n>.run: the run's record, when it claimed the slot, and what it does before its command ($doing: the install), one
# line written whole (a rename).
sub slot_record {
  my ($doing) = @_;
  return unless defined $slot;
  my $f = "$dir/.slots.d/$slot.run";
  ($doing //= '') =~ s/[\t\r\n]+/ /g;
  if (open(my $run, '>', "$f.$$")) {
    print $run "$job{record}\t$claimed_at", (length $doing ? "\t$doing" : ''), "\n";
    close $run;
    rename("$f.$$", $f);
  }
}
sub slot_count {
  my ($d, $want) = @_;
  if (open(my $fh, '<', "$d/.slots")) {
    my $n = <$fh>;
    close $fh;
    return $1 if defined $n && $n =~ /^(\d+)/ && $1 > 0;
  }
  if (open(my $fh, '>', "$d/.slots.$$")) {
    print $fh "$want\n";
    close $fh;
    rename("$d/.slots.$$", "$d/.slots");
  }
  return $want;
}
sub claim {
  mkpath("$dir/.slots.d") or refuse("cannot make the folder $dir/.slots.d on the worker");
  my $max = slot_count($dir, $job{slots} || 1);
  for my $n (0 .. $max - 1) {
    open(my $fh, '>>', "$dir/.slots.d/$n.lock") or next;
    if (flock($fh, LOCK_EX | LOCK_NB)) {
      $lock = $fh;
      ($slot, $claimed_at) = ($n, time());
      slot_record('');
      put('claim', $n);
      return $n;
    }
    close $fh;
  }
  put('claim', "busy $max");
  exit 0;
}
# Whether the copy is still what the last run left, for a client that may then skip the send (lib/send/warm-send.ts):
# "same GEN" when the copy's generation is GEN and nothing in it has a ctime newer than the marker that run made
# once its command had ended, before its report (the kernel sets ctime on every change, a deletion's on the folder;
# find stops at the first one), else "changed GEN". The copy's watcher (watch.pl) is asked first: when it saw
# nothing since the last run asked it, nothing is walked. What it saw ($watch_seen, also when it saw something) is
# what the report after the command starts from (main.pl).
our $watch_seen;
sub copy_state {
  my ($root, $folder) = @_;
  $watch_seen = watch_take("$root/../$folder.watch");
  my $gen = '';
  if (open(my $g, '<', "$root/../$folder.gen")) { $gen = <$g> // ''; chomp $gen; close $g }
  return "changed $gen" unless length($gen) && -d $root && -f "$root/../$folder.tree.done";
  return "same $gen" if $watch_seen && !@{$watch_seen->[0]} && !@{$watch_seen->[1]};
  my $back = Cwd::getcwd();
  return "changed $gen" unless defined $back && chdir $root;
  # find_split_any (find.pl): the walk split over the worker's processors, stopped at the first change.
  my $any = find_split_any(['-cnewer', "../$folder.tree.done", '-print']);
  chdir $back;
  return defined $any && !$any ? "same $gen" : "changed $gen";
}
