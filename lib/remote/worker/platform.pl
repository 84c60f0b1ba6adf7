# The worker's platform, as the worker program (a `plat` frame, every run) and `worker check` (its probe) report
# it: `OS ARCH LIBC` — Perl's own OS name, the machine's architecture as uname says it, and on Linux the C library
# perl itself was built against (its Config records glibc's version; none on musl). lib/platform/platform.ts reads
# the words. Perl core only; no `${` or backtick in here (a template string).
sub platform_line {
  require POSIX;
  require Config;
  no warnings 'once';
  my $arch = (POSIX::uname())[4] // '';
  my $libc = '';
  if ($^O eq 'linux') {
    my @musl = glob('/lib/ld-musl-*.so.1');
    if (length($Config::Config{gnulibc_version} // '')) { $libc = 'glibc' }
    elsif (@musl) { $libc = 'musl' }
  }
  return join(' ', grep { length } lc($^O), $arch, $libc);
}
