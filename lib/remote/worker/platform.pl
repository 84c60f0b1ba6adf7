# The worker's platform, as the worker program (a `plat` frame, every run) and `worker check` (its probe) report
# it: `OS ARCH LIBC` — Perl's own OS name, the machine's architecture as uname says it, and on Linux the C library
# perl itself was built against (its Config records glibc's version; none on musl). lib/platform/platform.ts reads
# the words. Perl core only; no `${` or backtick in here (a template string).
sub platform_line {
  require Config;
  no warnings 'once';
  my $arch = machine_name();
  my $libc = '';
  if ($^O eq 'linux') {
    my @musl = glob('/lib/ld-musl-*.so.1');
    if (length($Config::Config{gnulibc_version} // '')) { $libc = 'glibc' }
    elsif (@musl) { $libc = 'musl' }
  }
  return join(' ', grep { length } lc($^O), $arch, $libc);
}

# uname's machine: on Linux on x86_64 or aarch64 through the uname system call itself (Perl's syscall(), as the
# watcher reaches inotify), because POSIX, loaded for it alone, was the largest part of a warm run's Perl start
# (about 6 ms of it: docs/performance.md); POSIX::uname() anywhere else, or when the call fails. The buffer is a
# struct utsname: six fields of 65 bytes, the machine the fifth.
sub machine_name {
  my ($cpu) = ($Config::Config{archname} // '') =~ /^(x86_64|aarch64)-linux/;
  if (defined $cpu) {
    my $uts = "\0" x (6 * 65);
    if (syscall($cpu eq 'x86_64' ? 63 : 160, $uts) == 0) {
      (my $machine = substr($uts, 4 * 65, 65)) =~ s/\0.*//s;
      return $machine if length $machine;
    }
  }
  require POSIX;
  return (POSIX::uname())[4] // '';
}
