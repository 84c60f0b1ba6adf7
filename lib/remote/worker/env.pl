# The worker program: the environment the command runs in. The owner's login environment (login-env.ts: the
# cache, made again when a profile changed, bounded so a profile that hangs or asks for input cannot hold a
# run), the job's forwarded variables, git kept to this copy of the project, the project's .venv when it is
# active here, and the check that every program the command starts is there.
# Waits for a child; kills its group after $secs seconds. The exit status as a shell gives it, or undef on timeout.
sub wait_bounded {
  my ($pid, $secs) = @_;
  my $end = Time::HiRes::time() + $secs;
  while (Time::HiRes::time() < $end) {
    my $w = waitpid($pid, 1);
    return ($? & 127) ? 128 + ($? & 127) : $? >> 8 if $w == $pid;
    Time::HiRes::sleep(0.01);
  }
  kill 'KILL', -$pid;
  waitpid($pid, 0);
  return undef;
}

sub login_env {
  my $file = "$dir/.login-env";
  my $home = $ENV{HOME} // '';
  my @st = Time::HiRes::stat($file);
  my $stale = !@st || !$st[7];
  unless ($stale) {
    for my $f (map { s{^~/}{$home/}r } @login_profiles) {
      my @s = Time::HiRes::stat($f);
      if (@s && $s[9] > $st[9]) { $stale = 1; last }
    }
  }
  if ($stale) {
    my $tmp = "$file.$$";
    for my $sh (grep { defined && length } ($ENV{SHELL}, 'bash')) {
      my $pid = fork;
      next unless defined $pid;
      if (!$pid) {
        setpgrp(0, 0);
        open(STDIN, '<', '/dev/null');
        open(STDOUT, '>', $tmp) or exit 1;
        open(STDERR, '>', '/dev/null');
        $ENV{SPAREHAND_DUMP} = $login_dump;
        exec { $sh } $sh, '-l', '-c', 'exec perl -e "$SPAREHAND_DUMP"';
        exit 127;
      }
      my $st = wait_bounded($pid, $login_env_seconds);
      if (!defined $st) {
        print STDERR "sparehand: the worker's login shell ($sh -l) did not finish within ${login_env_seconds}s (a profile that waits for input?); the command runs with the ssh session's environment\n";
        unlink $tmp;
        last;
      }
      last if $st == 0 && -s $tmp;
    }
    if (-s $tmp) { rename($tmp, $file) } else { unlink $tmp }
  }
  open(my $fh, '<:raw', $file) or return;
  local $/ = "\0";
  while (my $kv = <$fh>) {
    chomp $kv;
    my ($name, $value) = split /=/, $kv, 2;
    next if !defined $value || $name !~ /^[A-Za-z0-9_]+$/ || $name =~ /$session_variables/;
    $ENV{$name} = $value;
  }
  close $fh;
}

# The command's environment: the job's variables (a name alone is one not set here: unset there, as a locale
# variable); git sees this copy of the project or nothing (never a repository above it, such as a worker owner's
# HOME kept in git); bash does not read ~/.bashrc again.
sub command_env {
  for my $kv (@{$many{env}}) {
    my ($k, $v) = split /=/, $kv, 2;
    if (defined $v) { $ENV{$k} = $v } elsif ($k =~ /^[A-Za-z_][A-Za-z0-9_]*$/) { delete $ENV{$k} }
  }
  delete @ENV{qw(SSH_CLIENT SSH2_CLIENT GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_COMMON_DIR GIT_DISCOVERY_ACROSS_FILESYSTEM)};
  $ENV{GIT_CEILING_DIRECTORIES} = $_[0];
  if (length($job{venv} // '')) {
    $ENV{VIRTUAL_ENV} = "$_[1]/$job{venv}";
    $ENV{PATH} = "$_[1]/$job{venv}/bin:" . ($ENV{PATH} // '');
    delete $ENV{PYTHONHOME};
  }
}

sub on_path {
  my ($p) = @_;
  for my $d (split /:/, $ENV{PATH} // '', -1) {
    my $f = (length $d ? $d : '.') . "/$p";
    return 1 if -x $f && !-d _;
  }
  return 0;
}

# Every program the command starts that exists here must exist there.
sub check_programs {
  my ($rel) = @_;
  for my $p (@{$many{program}}) {
    next unless length $p;
    if ($p =~ m{^/}) { refuse("$p does not exist on the worker") unless -x $p }
    elsif ($p =~ m{/}) { refuse("$p is not in the worker's copy of the project") unless -x "$rel/$p" }
    else { refuse("$p is not on the worker's PATH (its owner's login PATH: " . ($ENV{PATH} // '') . ')') unless on_path($p) }
  }
}
