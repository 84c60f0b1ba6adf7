# Takes a ticket, waits until no live ticket of a run that may run here is ahead and a slot is free, takes the
# slot, drops the ticket and holds the slot until stdin closes. A run that may not run here (`here` 0: it waits
# for a worker alone) only holds its ticket, so the runs after it wait their turn for that worker. A run that is
# stopped (Ctrl-Z, SIGSTOP: its sparehand or this program in state T) gives its place up while it is stopped: the
# runs behind it pass it, and it takes no slot until it goes on. Says `ahead <runs> <workers|->` when that
# changes, `slot <n>` when held, `unsafe <name> <why>` for a file it passed over.
# argv: folder, slot count, workers (comma-separated, or `-`), the run (one line), here (1 or 0).
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
