# The worker program: running a command (the project's, or a dependency install) in a process group of its own
# while sparehand's frames keep arriving. Its stdout becomes `out` frames and its stderr `err` frames, in the order
# they were read (for an install, both go to the program's stderr);
# `sig NAME` passes the signal to the whole group; the end of sparehand's input (Ctrl-C twice, sparehand killed,
# the connection lost) stops the group: TERM, then KILL 2 seconds later. When the command ends, whatever it left
# running in its group is killed; its output is read for a moment more (a process that left the group with
# setsid may keep the pipe open: it is not waited for).
our ($shell, $root_dir);
our $gone = 0;
# The first bytes an install printed (run_group 'install'): what a failed install said.
our $install_head = '';
sub status_of { my ($w) = @_; return ($w & 127) ? 128 + ($w & 127) : $w >> 8 }

# Frames that arrive while a command runs: signals for its group. Undef when sparehand is gone.
sub signals_in {
  my ($pid) = @_;
  fill();
  my @f;
  while (!$gone && eval { @f = take(); 1 } && @f) {
    kill($1, -$pid) if $f[0] eq 'sig' && $f[1] =~ /^(INT|TERM|HUP|QUIT)$/;
  }
  $gone = 1 if $@ || $in_eof;
}

# The words that run a command: bash -c CMD, or for a command too long for one argument (the kernel's limit is
# 128 KiB an argument), bash -c 'eval "$(cat)"' reading it from a file that is its stdin (at its end, as
# /dev/null would be, when the command starts). Call in the child.
sub command_argv {
  my ($cmd) = @_;
  return ($shell, '-c', $cmd) if length($cmd) < 65536;
  my $file = "$root_dir/../$folder.cmd.$$";
  open(my $fh, '>:raw', $file) or exit 126;
  print $fh $cmd;
  close $fh;
  open(STDIN, '<', $file) or exit 126;
  unlink $file;
  return ($shell, '-c', 'eval "$(cat)"');
}

sub run_group {
  my ($cmd, $cwd, $how) = @_;
  my ($r, $w, $er, $ew);
  if ($how ne 'stderr') { pipe($r, $w) or refuse("cannot make a pipe on the worker: $!") }
  if ($how eq 'frames') { pipe($er, $ew) or refuse("cannot make a pipe on the worker: $!") }
  $install_head = '' if $how eq 'install';
  my $pid = fork;
  refuse("cannot start a process on the worker: $!") unless defined $pid;
  if (!$pid) {
    # In a terminal the group stays the terminal's foreground one, where Ctrl-C reaches it.
    setpgrp(0, 0) unless $mode eq 'tty';
    $SIG{PIPE} = 'DEFAULT';
    open(STDIN, '<', '/dev/null');
    open(STDOUT, '>&', $w ? $w : \*STDERR);
    open(STDERR, '>&', $how eq 'install' ? $w : $ew) if $ew || $how eq 'install';
    close $_ for grep { defined } ($r, $er, $w, $ew);
    my @argv = command_argv($cmd);
    chdir $cwd or exit 125;
    exec { $argv[0] } @argv;
    exit 127;
  }
  close $_ for grep { defined } ($w, $ew);
  # The command's output pipes and the frame each becomes.
  my @outs = grep { defined $_->[0] } ([$r, 'out'], [$er, 'err']);
  my ($status, $stop_at, $drain_until);
  local $SIG{CHLD} = sub { };
  local $SIG{INT} = $mode eq 'tty' ? 'IGNORE' : $SIG{INT};
  local $SIG{QUIT} = $mode eq 'tty' ? 'IGNORE' : $SIG{QUIT};
  for (;;) {
    if (!defined $status && waitpid($pid, 1) == $pid) {
      $status = status_of($?);
      kill 'KILL', -$pid;
      $drain_until = Time::HiRes::time() + 0.2;
    }
    last if defined $status && (!@outs || Time::HiRes::time() > $drain_until);
    my $rin = '';
    vec($rin, fileno($_->[0]), 1) = 1 for @outs;
    # (A terminal session has no frames from sparehand: its job came from a file.)
    vec($rin, fileno($in), 1) = 1 unless $in_eof || defined $status || $mode eq 'tty';
    my $n = select(my $rout = $rin, undef, undef, defined $status ? 0.05 : 0.5);
    if ($n && $n > 0) {
      for my $o (@outs) {
        next unless vec($rout, fileno($o->[0]), 1);
        my $got = sysread($o->[0], my $buf, 65536);
        if ($got && $how eq 'install') {
          syswrite(STDERR, $buf);
          $install_head .= substr($buf, 0, 8192 - length $install_head) if length($install_head) < 8192;
        } elsif ($got) { put($o->[1], $buf) or $gone = 1 }
        elsif (defined $got || !$!{EINTR}) { close $o->[0]; $o->[0] = undef }
      }
      @outs = grep { defined $_->[0] } @outs;
      signals_in($pid) if !$in_eof && vec($rout, fileno($in), 1);
    }
    $gone = 1 if !$out_ok;
    if ($gone && !defined $status) {
      if (!defined $stop_at) { kill 'TERM', -$pid; $stop_at = Time::HiRes::time() + 2 }
      elsif (Time::HiRes::time() > $stop_at) { kill 'KILL', -$pid }
    }
  }
  close $_->[0] for @outs;
  return $gone ? undef : $status;
}

# Terminal mode: the command runs in the foreground of the worker's terminal (ssh -tt), where Ctrl-C reaches it.
sub run_foreground {
  my ($cmd, $cwd) = @_;
  my $long = "$root_dir/../$folder.cmd.$$";
  if (length($cmd) >= 65536) {
    open(my $fh, '>:raw', $long) or refuse("cannot write the command on the worker: $!");
    print $fh $cmd;
    close $fh;
  }
  my $pid = fork;
  refuse("cannot start a process on the worker: $!") unless defined $pid;
  if (!$pid) {
    $SIG{PIPE} = 'DEFAULT';
    # Too long for one argument, and the terminal stays stdin: read from a file named in $0 (removed after).
    my @argv = length($cmd) < 65536 ? ($shell, '-c', $cmd) : ($shell, '-c', 'eval "$(cat -- "$0")"', $long);
    chdir $cwd or exit 125;
    exec { $argv[0] } @argv;
    exit 127;
  }
  local $SIG{INT} = 'IGNORE';
  local $SIG{QUIT} = 'IGNORE';
  waitpid($pid, 0);
  my $st = status_of($?);
  unlink $long;
  return $st;
}
