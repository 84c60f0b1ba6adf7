// The worker program: claiming a slot. Slots are counted on the worker itself, so several machines sharing it
// never use one slot at once: the session holds a flock on `<dir>/.slots.d/<n>.lock` until it ends (a dropped
// connection frees it at once), and `<n>.run` says who holds it (`sparehand status`, worker-slots.ts SLOT_STATUS).
// The count is the worker's own `<dir>/.slots`, written by `worker add --slots` or, when missing, by a first run.
export const CLAIM_PL = String.raw`
use Fcntl qw(:flock O_WRONLY O_CREAT O_EXCL);
our $lock;
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
      if (open(my $run, '>', "$dir/.slots.d/$n.run.$$")) {
        print $run "$job{record}\t", time(), "\n";
        close $run;
        rename("$dir/.slots.d/$n.run.$$", "$dir/.slots.d/$n.run");
      }
      put('claim', $n);
      return $n;
    }
    close $fh;
  }
  put('claim', "busy $max");
  exit 0;
}
# Whether the copy is still what the last run left, for a client that may then skip the send (lib/remote/warm-send.ts):
# "same GEN" when the copy's generation is GEN and nothing in it has a ctime newer than the marker that run made
# once its command had ended, before its report (the kernel sets ctime on every change, a deletion's on the folder;
# find stops at the first one), else "changed GEN".
sub copy_state {
  my ($root, $folder) = @_;
  my $gen = '';
  if (open(my $g, '<', "$root/../$folder.gen")) { $gen = <$g> // ''; chomp $gen; close $g }
  return "changed $gen" unless length($gen) && -d $root && -f "$root/../$folder.tree.done";
  my $back = Cwd::getcwd();
  return "changed $gen" unless defined $back && chdir $root;
  # find_split_any (find.pl.ts): the walk split over the worker's processors, stopped at the first change.
  my $any = find_split_any(['-cnewer', "../$folder.tree.done", '-print']);
  chdir $back;
  return defined $any && !$any ? "same $gen" : "changed $gen";
}
`;
