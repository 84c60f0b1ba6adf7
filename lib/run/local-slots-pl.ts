// The Perl that holds this machine's local slots (local-slots.ts). Node has no flock(2); a small Perl child
// does: the kernel drops its locks the moment it exits, and it exits when its stdin closes — when sparehand
// ends, however it ends (SIGKILL included). No stale slot or ticket is ever waited on, no pid is ever judged.
//
// Files, in the state folder's `local-slots/`: `slot.N` (held: locked, and naming its run), `queue/next` (the
// ticket counter), `queue/<15 digits>` (a waiting run's ticket, locked while it waits: its first line says whether
// it may run here (1 or 0) and names the workers it waits for, its second names the run).

/**
 * Takes a ticket, waits until no live ticket of a run that may run here is ahead and a slot is free, takes the
 * slot, drops the ticket and holds the slot until stdin closes. A run that may not run here (`here` 0: it waits
 * for a worker alone) only holds its ticket, so the runs after it wait their turn for that worker. Says
 * `ahead <runs> <workers|->` when that changes, `slot <n>` when held.
 * argv: folder, slot count, workers (comma-separated, or `-`), the run (one line), here (1 or 0).
 */
export const TAKE_PL = String.raw`
use strict; use warnings; use Fcntl qw(:flock O_RDWR O_CREAT O_TRUNC);
my ($dir, $slots, $workers, $info, $here) = @ARGV;
$SIG{$_} = 'IGNORE' for qw(INT TERM HUP QUIT PIPE);
$| = 1;
my $q = "$dir/queue";
for my $d ($dir, $q) { mkdir $d, 0700; -d $d or die "cannot make $d: $!\n" }
sysopen(my $c, "$q/next", O_RDWR | O_CREAT, 0600) or die "cannot open $q/next: $!\n";
flock($c, LOCK_EX) or die "cannot lock $q/next: $!\n";
my $n = <$c>; $n = (defined $n && $n =~ /^(\d+)/) ? $1 + 1 : 1;
my $me = sprintf('%015d', $n);
my $tmp = "$q/.$me.$$";
sysopen(my $t, $tmp, O_RDWR | O_CREAT | O_TRUNC, 0600) or die "cannot write $tmp: $!\n";
flock($t, LOCK_EX) or die "cannot lock $tmp: $!\n";
syswrite($t, "$here $workers\n$info\n");
# Locked before it has its name: a ticket is never seen unlocked while its run lives.
rename($tmp, "$q/$me") or die "cannot rename $tmp: $!\n";
seek($c, 0, 0); truncate($c, 0); syswrite($c, "$n\n"); close $c;
my ($last, $held) = ('');
while (1) {
  my ($ahead, $here_ahead, %w) = (0, 0);
  opendir(my $d, $q) or die "cannot read $q: $!\n";
  my @before = sort grep { /^\d{15}$/ && $_ lt $me } readdir $d;
  closedir $d;
  for my $o (@before) {
    open(my $f, '<', "$q/$o") or next;
    # Not locked: its run is gone.
    if (flock($f, LOCK_SH | LOCK_NB)) { unlink "$q/$o"; next }
    die "cannot lock $q/$o: $!\n" unless $!{EWOULDBLOCK} || $!{EAGAIN};
    my $line = <$f> // ''; chomp $line;
    my ($h, $ws) = split / /, $line, 2;
    $w{$_} = 1 for grep { $_ ne '-' && $_ ne '' } split /,/, $ws // '';
    $ahead++;
    $here_ahead++ if ($h // '1') ne '0';
  }
  if ($here && $here_ahead == 0) {
    for my $i (0 .. $slots - 1) {
      sysopen(my $s, "$dir/slot.$i", O_RDWR | O_CREAT, 0600) or die "cannot open $dir/slot.$i: $!\n";
      next unless flock($s, LOCK_EX | LOCK_NB);
      truncate($s, 0); syswrite($s, "$info\n");
      $held = $s; print "slot $i\n"; last;
    }
    if ($held) { unlink "$q/$me"; close $t; last }
  }
  # Said only when the run waits: a slot free at once is no wait.
  my $now = "$ahead " . (join(',', sort keys %w) || '-');
  if ($now ne $last) { print "ahead $now\n"; $last = $now }
  my $rin = ''; vec($rin, fileno(STDIN), 1) = 1;
  exit 0 if select(my $rout = $rin, undef, undef, 0.1) > 0 && !sysread(STDIN, my $buf, 64);
}
1 while sysread(STDIN, my $buf, 64);
`;

/** Which slots are held and which tickets wait, without taking any: `held <n> <run>`, `wait <ticket> <here> <workers> <run>`. */
export const PEEK_PL = String.raw`
use strict; use warnings; use Fcntl qw(:flock);
my ($dir, $slots) = @ARGV;
for my $i (0 .. $slots - 1) {
  open(my $f, '<', "$dir/slot.$i") or next;
  next if flock($f, LOCK_SH | LOCK_NB);
  my $info = <$f> // ''; chomp $info; print "held $i $info\n";
}
opendir(my $d, "$dir/queue") or exit 0;
for my $o (sort grep { /^\d{15}$/ } readdir $d) {
  open(my $f, '<', "$dir/queue/$o") or next;
  next if flock($f, LOCK_SH | LOCK_NB);
  my $ws = <$f> // ''; my $info = <$f> // ''; chomp($ws, $info); print "wait $o $ws $info\n";
}
`;
