// The Perl that holds this machine's local slots (local-slots.ts). Node has no flock(2); a small Perl child
// does: the kernel drops its locks the moment it exits, and it exits when its stdin closes — when sparehand
// ends, however it ends (SIGKILL included). No stale slot or ticket is ever waited on; a pid is judged only to
// pass a waiting run that is stopped.
//
// Files, in the state folder's `local-slots/`: `slot.N` (held: locked, and naming its run), `queue/next` (the
// ticket counter), `queue/<15 digits>` (a waiting run's ticket, locked while it waits: its first line says whether
// it may run here (1 or 0), names the workers it waits for and the pids of its holder and its sparehand, its second
// names the run).

/**
 * What both programs share: nothing is opened through a link or waited on (O_NOFOLLOW, O_NONBLOCK), and only a file
 * sparehand could have made is used (fstat after the open: a regular file of this user's with one name); another
 * (a link to ~/.bashrc planted from inside a sandbox, a FIFO at `queue/next`, a hard link) is said once as
 * `unsafe <name> <why>`, and its name only is taken away (`fix`). The folders are entered (chdir, then checked as
 * entered) once: what is opened after is found in them, not by a path looked up again.
 */
const OWN_PL = String.raw`
use strict; use warnings; use Fcntl qw(:flock O_RDONLY O_RDWR O_CREAT O_EXCL O_TRUNC O_NOFOLLOW O_NONBLOCK);
my %said;
sub unsafe { my ($name, $why) = @_; print "unsafe $name $why\n" unless $said{$name}++; }
# A name as the run sees it (from inside queue/, where it works) and as it is said (in local-slots/).
sub at { my ($name) = @_; $name =~ m{^queue/(.*)} ? $1 : "../$name" }
# Why the file last stat-ed (lstat-ed when $l) is not one sparehand made; undef when it could be.
sub fault {
  my ($l, @s) = @_;
  return 'a link, not a file sparehand made' if $l && -l _;
  return -p _ ? 'a FIFO, not a file sparehand made' : 'not a regular file' unless -f _;
  return "it belongs to another user (uid $s[4])" if $s[4] != $>;
  return 'a hard link to another file, not a file sparehand made' if $s[3] > 1;
  return undef;
}
sub own {
  my ($name, $flags, $fix) = @_;
  my $fh;
  if (sysopen($fh, at($name), $flags | O_NOFOLLOW | O_NONBLOCK, 0600)) {
    my @s = stat $fh;
    my $why = fault(0, @s);
    return $fh unless defined $why;
    close $fh;
    unsafe($name, $why);
    my @l = lstat at($name);
    unlink at($name) if $fix && @l && $l[0] == $s[0] && $l[1] == $s[1];
    return undef;
  }
  return undef if $!{ENOENT};
  my $e = "$!";
  my @l = lstat at($name) or return undef;
  unsafe($name, fault(1, @l) // "cannot be opened ($e)");
  unlink at($name) if $fix && (-l _ || -p _);
  return undef;
}
# Into a folder of this user's that no other user can write; a link or a file there instead is taken away.
sub enter {
  my ($d, $make) = @_;
  my @l = lstat $d;
  if (@l && (-l _ || !-d _) && $make) { unsafe($d, -l _ ? 'a link, not a folder sparehand made' : 'not a folder'); unlink $d; @l = () }
  if (!@l) { return 0 unless $make; mkdir $d, 0700; @l = lstat $d or die "cannot make $d: $!\n" }
  die "$d is not a folder sparehand made\n" if -l _ || !-d _;
  die "$d belongs to another user (uid $l[4])\n" if $l[4] != $>;
  chdir $d or die "cannot enter $d: $!\n";
  my @s = stat '.' or die "cannot enter $d: $!\n";
  die "$d changed while it was entered\n" if $s[0] != $l[0] || $s[1] != $l[1];
  chmod 0700, '.' if $s[2] & 022;
  return 1;
}
`;

/**
 * Takes a ticket, waits until no live ticket of a run that may run here is ahead and a slot is free, takes the
 * slot, drops the ticket and holds the slot until stdin closes. A run that may not run here (`here` 0: it waits
 * for a worker alone) only holds its ticket, so the runs after it wait their turn for that worker. A run that is
 * stopped (Ctrl-Z, SIGSTOP: its sparehand or this program in state T) gives its place up while it is stopped: the
 * runs behind it pass it, and it takes no slot until it goes on. Says `ahead <runs> <workers|->` when that
 * changes, `slot <n>` when held, `unsafe <name> <why>` for a file it passed over.
 * argv: folder, slot count, workers (comma-separated, or `-`), the run (one line), here (1 or 0).
 */
export const TAKE_PL = String.raw`${OWN_PL}
my ($dir, $slots, $workers, $info, $here) = @ARGV;
$SIG{$_} = 'IGNORE' for qw(INT TERM HUP QUIT PIPE);
$| = 1;
# Stopped: /proc's state T on Linux, ps's elsewhere (asked at most once a second per process there).
my %ps;
sub stopped {
  my ($pid) = @_;
  return 0 unless defined $pid && $pid =~ /^\d+$/ && $pid > 1;
  if (-d '/proc/self') {
    open(my $s, '<', "/proc/$pid/stat") or return 0;
    my $st = <$s> // '';
    return $st =~ /.*\)\s+T/s ? 1 : 0;
  }
  my $now = time;
  return $ps{$pid}[1] if $ps{$pid} && $ps{$pid}[0] == $now;
  my $out = '';
  if (open(my $p, '-|', 'ps', '-o', 'stat=', '-p', $pid)) { local $/; $out = <$p> // ''; close $p }
  $ps{$pid} = [$now, $out =~ /^\s*T/ ? 1 : 0];
  return $ps{$pid}[1];
}
enter($dir, 1);
enter('queue', 1);
# From here on the program works in queue/ as entered, the slots in its folder (..).
my $c = own('queue/next', O_RDWR | O_CREAT, 1) // own('queue/next', O_RDWR | O_CREAT, 1) or die "cannot open $dir/queue/next\n";
flock($c, LOCK_EX) or die "cannot lock $dir/queue/next: $!\n";
my $n = <$c>; $n = (defined $n && $n =~ /^(\d+)/) ? $1 + 1 : 1;
my $me = sprintf('%015d', $n);
my $tmp = ".$me.$$";
unlink $tmp;
sysopen(my $t, $tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600) or die "cannot write $dir/queue/$tmp: $!\n";
flock($t, LOCK_EX) or die "cannot lock $dir/queue/$tmp: $!\n";
# Who holds it (this program and its sparehand), for those behind it to see it stopped.
syswrite($t, "$here $workers $$ " . getppid() . "\n$info\n");
# Locked before it has its name: a ticket is never seen unlocked while its run lives.
rename($tmp, $me) or die "cannot rename $dir/queue/$tmp: $!\n";
seek($c, 0, 0); truncate($c, 0); syswrite($c, "$n\n"); close $c;
my ($last, $held) = ('');
while (1) {
  my ($ahead, $here_ahead, %w) = (0, 0);
  opendir(my $d, '.') or die "cannot read $dir/queue: $!\n";
  my @before = sort grep { /^\d{15}$/ && $_ lt $me } readdir $d;
  closedir $d;
  for my $o (@before) {
    my $f = own("queue/$o", O_RDONLY, 1) or next;
    # Not locked: its run is gone.
    if (flock($f, LOCK_SH | LOCK_NB)) { unlink $o; next }
    die "cannot lock $dir/queue/$o: $!\n" unless $!{EWOULDBLOCK} || $!{EAGAIN};
    my $line = <$f> // ''; chomp $line;
    my ($h, $ws, @pids) = split / /, $line;
    next if grep { stopped($_) } @pids;
    $w{$_} = 1 for grep { $_ ne '-' && $_ ne '' } split /,/, $ws // '';
    $ahead++;
    $here_ahead++ if ($h // '1') ne '0';
  }
  if ($here && $here_ahead == 0 && !stopped(getppid())) {
    for my $i (0 .. $slots - 1) {
      my $s = own("slot.$i", O_RDWR | O_CREAT, 1) // own("slot.$i", O_RDWR | O_CREAT, 1) or next;
      next unless flock($s, LOCK_EX | LOCK_NB);
      truncate($s, 0); syswrite($s, "$info\n");
      $held = $s; print "slot $i\n"; last;
    }
    if ($held) { unlink $me; close $t; last }
  }
  # Said only when the run waits: a slot free at once is no wait.
  my $now = "$ahead " . (join(',', sort keys %w) || '-');
  if ($now ne $last) { print "ahead $now\n"; $last = $now }
  my $rin = ''; vec($rin, fileno(STDIN), 1) = 1;
  exit 0 if select(my $rout = $rin, undef, undef, 0.1) > 0 && !sysread(STDIN, my $buf, 64);
}
1 while sysread(STDIN, my $buf, 64);
`;

/**
 * Which slots are held and which tickets wait, without taking any or changing anything: `held <n> <run>`,
 * `wait <ticket> <here> <workers> <run>` (and `unsafe <name> <why>` for a file it passed over).
 */
export const PEEK_PL = String.raw`${OWN_PL}
my ($dir, $slots) = @ARGV;
enter($dir, 0) or exit 0;
# No queue yet: no run has taken a slot.
enter('queue', 0) or exit 0;
for my $i (0 .. $slots - 1) {
  my $f = own("slot.$i", O_RDONLY, 0) or next;
  next if flock($f, LOCK_SH | LOCK_NB);
  my $info = <$f> // ''; chomp $info; print "held $i $info\n";
}
opendir(my $d, '.') or exit 0;
for my $o (sort grep { /^\d{15}$/ } readdir $d) {
  my $f = own("queue/$o", O_RDONLY, 0) or next;
  next if flock($f, LOCK_SH | LOCK_NB);
  my $ws = <$f> // ''; my $info = <$f> // ''; chomp($ws, $info);
  my ($h, $w) = split / /, $ws;
  print "wait $o ", $h // 1, ' ', $w // '-', " $info\n";
}
`;
