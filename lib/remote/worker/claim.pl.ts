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
`;
