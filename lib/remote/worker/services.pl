# The worker program: the services the config starts on the worker for a run (`services: [{ port, start }]`,
# lib/run/services.ts), as CI's service containers are: each started in the copy before the command, in the
# command's environment, ready when its port answers on 127.0.0.1 (and its `ready` command says so), stopped once
# the command ends. Each runs under a guard of its own process group that holds a pipe from this program: when the
# program goes, however it goes (the run ended, stopped, refused, killed with -9), the pipe ends and the guard
# stops the service's whole group (TERM, then KILL 5 s later). The command's group is not the service's: nothing
# the command's end kills, and no signal for the command, reaches it first.
our @services;

sub port_answers {
  my ($port) = @_;
  require IO::Socket::INET;
  my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port, Proto => 'tcp', Timeout => 1);
  return 0 unless $s;
  close $s;
  return 1;
}

# The end of what the service printed (its log, beside the copy), as one line of plain text.
sub service_tail {
  my ($log) = @_;
  open(my $fh, '<:raw', $log) or return '';
  my $size = -s $fh;
  seek($fh, $size > 600 ? $size - 600 : 0, 0);
  local $/;
  my $t = <$fh> // '';
  close $fh;
  # (Only printable ASCII: what the service printed is the worker's, and nothing of it may forge or hide a line.)
  $t =~ s/[\x00-\x1f]+/ /g;
  $t =~ s/[^\x20-\x7e]+/?/g;
  $t =~ s/^\s+|\s+$//g;
  return length $t ? "; it printed: $t" : '; it printed nothing';
}

# The guard: in a process group of its own with the service, until the pipe from the program ends or the service does.
sub guard_service {
  my ($gr, $start, $cwd, $log) = @_;
  setpgrp(0, 0);
  $SIG{TERM} = $SIG{INT} = $SIG{HUP} = 'IGNORE';
  # Nothing of the session's: its end must not wait for the guard (sshd closes a channel when its pipes close).
  open(STDIN, '<', '/dev/null');
  open(STDOUT, '>>', $log);
  open(STDERR, '>&', \*STDOUT);
  close $_->[1] for @services;
  my $svc = fork;
  exit 1 unless defined $svc;
  if (!$svc) {
    close $gr;
    $SIG{TERM} = $SIG{INT} = $SIG{HUP} = $SIG{PIPE} = 'DEFAULT';
    chdir $cwd or exit 125;
    exec { $shell } $shell, '-c', $start;
    exit 127;
  }
  my $status;
  for (;;) {
    if (waitpid($svc, 1) == $svc) { $status = $?; last }
    my $rin = '';
    vec($rin, fileno($gr), 1) = 1;
    my $n = select(my $rout = $rin, undef, undef, 0.2);
    last if $n && $n > 0 && !sysread($gr, my $buf, 1);
  }
  # Stop what is left of the group: the service (TERM, as docker stop does, 5 s to save and go), then everything.
  kill 'TERM', -$$;
  my $end = Time::HiRes::time() + 5;
  while (!defined $status && Time::HiRes::time() < $end) {
    if (waitpid($svc, 1) == $svc) { $status = $?; last }
    Time::HiRes::sleep(0.05);
  }
  kill 'KILL', -$$;
  exit 0;
}

# Starts the job's services in the copy ($cwd), each ready before the command starts; refuses when one cannot be.
sub start_services {
  my ($cwd) = @_;
  for my $line (split /\n/, $job{services} // '') {
    my ($port, $secs, @hex) = split /\t/, $line, -1;
    my ($name, $ready, $start) = map { pack('H*', $_ // '') } @hex[0 .. 2];
    next unless defined $port && $port =~ /^\d{1,5}$/ && length $start;
    $secs = 30 unless defined $secs && $secs =~ /^\d{1,4}$/ && $secs > 0;
    my $what = "the service $name (port $port)";
    refuse("$what cannot start on the worker: something there listens on 127.0.0.1:$port already (another run's service, or the worker's own)") if port_answers($port);
    my $log = "$root_dir/../$folder.service-$port.log";
    unlink $log;
    pipe(my $gr, my $gw) or refuse("cannot make a pipe on the worker: $!");
    my $pid = fork;
    refuse("cannot start a process on the worker: $!") unless defined $pid;
    if (!$pid) { close $gw; guard_service($gr, $start, $cwd, $log) }
    close $gr;
    push @services, [$pid, $gw];
    my $end = Time::HiRes::time() + $secs;
    for (;;) {
      refuse("$what ended on the worker before it was ready" . service_tail($log)) if waitpid($pid, 1) == $pid;
      if (port_answers($port)) {
        last unless length $ready;
        my $r = fork;
        if (defined $r && !$r) {
          setpgrp(0, 0);
          open(STDIN, '<', '/dev/null');
          open(STDOUT, '>>', $log);
          open(STDERR, '>&', \*STDOUT);
          chdir $cwd or exit 125;
          exec { $shell } $shell, '-c', $ready;
          exit 127;
        }
        my $st = defined $r ? wait_bounded($r, 10) : undef;
        last if defined $st && $st == 0;
      }
      my $how = length $ready ? 'its port did not answer, or its ready command did not succeed' : 'its port did not answer';
      refuse("$what was not ready on the worker within $secs seconds ($how)" . service_tail($log)) if Time::HiRes::time() > $end;
      # Meanwhile, sparehand going away (its input ends) ends the wait: the guard stops the service as this exits.
      # (What arrives stays in the input buffer for the command's turn.)
      if ($mode eq 'tty' || $in_eof) { Time::HiRes::sleep(0.1) }
      else {
        my $rin = '';
        vec($rin, fileno($in), 1) = 1;
        fill() if select(my $rout = $rin, undef, undef, 0.1) > 0;
      }
      exit 0 if $in_eof && $mode ne 'tty';
    }
  }
}

# Stops them (the guards see their pipes end) and waits until each group is gone: bounded, then KILL.
sub stop_services {
  close $_->[1] for @services;
  my $end = Time::HiRes::time() + 10;
  for my $s (@services) {
    while (waitpid($s->[0], 1) != $s->[0]) {
      if (Time::HiRes::time() > $end) { kill 'KILL', -$s->[0]; waitpid($s->[0], 0); last }
      Time::HiRes::sleep(0.02);
    }
  }
  @services = ();
}
