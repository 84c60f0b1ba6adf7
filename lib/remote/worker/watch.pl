# In the worker program: asking the copy's watcher, and starting one.
# Whether the copy's watcher lives (it holds its lock).
sub watch_alive {
  my ($base) = @_;
  open(my $lk, '>>', "$base.lock") or return 0;
  my $free = flock($lk, LOCK_SH | LOCK_NB);
  close $lk;
  return !$free;
}
# What the copy's watcher saw since it was last asked: [paths with an event, folders made], or undef (no watcher, no
# answer, or its first answer, which covers only the time since it started: then nothing is known).
sub watch_take {
  my ($base) = @_;
  return undef unless watch_alive($base);
  my $word = random_hex();
  open(my $p, '>', "$base.ping") or return undef;
  print $p $word;
  close $p or return undef;
  for my $i (1 .. 4000) {
    my $a = slurp("$base.ans");
    if (defined $a && substr($a, 0, length($word) + 1) eq "$word\n" && substr($a, length($word) + 1, 4) =~ /^(ok|new)\n/) {
      return undef if $1 eq 'new';
      my (@dirty, @made);
      for my $r (split /\0/, substr($a, length($word) + 4)) { push @{substr($r, 0, 1) eq 'n' ? \@made : \@dirty}, substr($r, 1) }
      return [\@dirty, \@made];
    }
    last unless $i % 50 || watch_alive($base);
    Time::HiRes::sleep(0.0005);
  }
  # No answer: a watcher that does not answer is of no use (it is stopped, so that the next run starts another).
  if (watch_alive($base) && defined(my $pid = slurp("$base.pid"))) { kill 'KILL', $1 if $pid =~ /^(\d+)$/ }
  return undef;
}
# Starts a watcher over the copy ROOT (detached: its own session, no handle of the run's) unless one lives.
sub watch_start {
  my ($root, $base) = @_;
  return unless $^O eq 'linux' && !watch_alive($base);
  my $pid = fork;
  return unless defined $pid;
  if (!$pid) {
    require POSIX;
    POSIX::setsid();
    my $again = fork;
    POSIX::_exit(0) if !defined $again || $again;
    chdir '/';
    open(STDIN, '<', '/dev/null');
    open(STDOUT, '>', '/dev/null');
    open(STDERR, '>', '/dev/null');
    %ENV = (PATH => '/usr/bin:/bin', SPAREHAND_WATCH_ROOT => $root, SPAREHAND_WATCH_BASE => $base);
    exec { $^X } 'sparehand-watch', '-e', $watcher_pl or POSIX::_exit(0);
  }
  waitpid($pid, 0);
}
# The paths the report looks at after the command, from what the watcher saw: each folder with an event and each
# name an event named (changed_entries lists a folder to see what went), each folder made with all below it, the
# skipped ones aside. (More than changed: the report keeps what did not.)
sub watch_candidates {
  my ($seen) = @_;
  my ($dirty, $made) = @$seen;
  my %c = map { $_ => 1 } @$dirty;
  my @todo = grep { !skipped_path($_, 1) } @$made;
  while (defined(my $d = shift @todo)) {
    $c{$d} = 1;
    next if -l $d || !-d _;
    opendir(my $dh, $d) or next;
    for my $n (readdir $dh) {
      next if $n eq '.' || $n eq '..';
      my $p = "$d/$n";
      if (!-l $p && -d _) { push @todo, $p unless skipped_path($p, 1) } else { $c{$p} = 1 }
    }
    closedir $dh;
  }
  return [keys %c];
}
