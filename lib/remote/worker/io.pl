# The worker program's first part: framed input and output, the job, and the session kept the program's own.
#
# Everything after the bootstrap travels in frames, both ways: `TYPE LENGTH\n` and LENGTH bytes (lib/remote/frames.ts
# is the client's codec; lib/remote/protocol.ts the one table of every type, held to this program by
# test/remote/frame-table.test.ts). The command's stdout reaches sparehand only inside `out` frames that this program writes,
# so nothing the command prints can pass for results or an exit status. The session is the program's own: the
# bootstrap made it non-dumpable on Linux before it read anything (program.ts BOOT), so that no process of the same
# user (the command, a leftover of an earlier run) can open its input or output through /proc, read its memory or
# trace it; what it starts never holds the session's input or output (kept on descriptors closed on exec); and each
# frame it sends is sealed with the session's key (docs/run.md "What the worker can and cannot do to this machine").
#
# Perl, not perl modules beyond the core ones every Linux and Mac has; no `${` in here (a template string).
use strict;
use warnings;
our ($in, $program, $session_key);
$SIG{PIPE} = 'IGNORE';
binmode STDERR;

# Where frames go: sparehand's end of the session, or a file (terminal mode).
our $OUT = \*STDOUT;
if (!@ARGV) {
  # The session's input and output on descriptors above $^F, which perl closes on exec: a program this one starts
  # (find, an install, the command) never has them, whatever it is given.
  open(my $i, '<&', $in) or die "sparehand: the worker cannot keep the session's input: $!\n";
  open(my $o, '>&', \*STDOUT) or die "sparehand: the worker cannot keep the session's output: $!\n";
  open(STDIN, '<', '/dev/null');
  open(STDOUT, '>', '/dev/null');
  ($in, $OUT) = ($i, $o);
}
binmode $OUT;
# Each frame sealed with the session's key: HMAC-MD5 of its number, type and payload (lib/remote/frames.ts seal);
# in terminal mode with the key the holding session gave in the job, which checks them as it passes them on.
my $seq = 0;
my ($ipad, $opad);
# The HMAC's inner and outer keys for a key of 64 hex digits.
sub seal_pads {
  my ($k) = @_;
  die "sparehand: the worker got a session key that is not one\n" unless $k =~ /^[0-9a-f]{64}$/;
  unless (eval { require Digest::MD5; 1 }) {
    print STDERR "sparehand: the worker's perl lacks Digest::MD5, which sparehand needs (install perl's standard modules there: the package perl)\n";
    exit 125;
  }
  return ($k ^ ("\x36" x 64), $k ^ ("\x5c" x 64));
}
sub seal_of {
  my ($ip, $op, $n, $type, $payload) = @_;
  return substr(Digest::MD5::md5_hex($op . Digest::MD5::md5($ip . $n . "\0" . $type . "\0" . $payload)), 0, 32);
}
($ipad, $opad) = seal_pads($session_key) if length($session_key // '');
our $out_ok = 1;
sub put {
  my $head = $_[0] . ' ' . length($_[1]);
  if (defined $ipad) {
    $head .= ' ' . seal_of($ipad, $opad, $seq++, $_[0], $_[1]);
  }
  my $data = $head . "\n" . $_[1];
  my ($off, $len) = (0, length $data);
  while ($off < $len) {
    my $n = syswrite($OUT, $data, $len - $off, $off);
    if (!defined $n) { next if $!{EINTR}; $out_ok = 0; return 0 }
    $off += $n;
  }
  return 1;
}
sub refuse { put('refused', $_[0]); exit 125 }

# Frames from sparehand (or, in terminal mode, from the job file).
our $inbuf = '';
our $in_eof = 0;
sub fill {
  return 0 if $in_eof;
  my $n = sysread($in, $inbuf, 262144, length $inbuf);
  return 1 if $n;
  return 1 if !defined $n && $!{EINTR};
  $in_eof = 1;
  return 0;
}
sub take {
  my $nl = index($inbuf, "\n");
  if ($nl < 0) {
    die "sparehand: the worker got a malformed frame from sparehand\n" if length($inbuf) > 40;
    return ();
  }
  my ($type, $len) = (substr($inbuf, 0, $nl) =~ /^([a-z]{1,16}) (\d{1,15})$/)
    or die "sparehand: the worker got a malformed frame from sparehand\n";
  return () if length($inbuf) < $nl + 1 + $len;
  my $payload = substr($inbuf, $nl + 1, $len);
  substr($inbuf, 0, $nl + 1 + $len) = '';
  return ($type, $payload);
}
sub frame {
  for (;;) {
    my @f = take();
    return @f if @f;
    return () unless fill();
  }
}

# The job: NUL-separated names and values; env, dep and program may come many times.
our %job;
our %many = (env => [], dep => [], program => [], prune => []);
{
  my ($type, $payload) = frame();
  die "sparehand: the worker got no job from sparehand\n" unless defined $type && $type eq 'job';
  my @kv = split /\0/, $payload, -1;
  pop @kv if @kv % 2;
  while (@kv) {
    my ($k, $v) = splice(@kv, 0, 2);
    if (exists $many{$k}) { push @{$many{$k}}, $v } else { $job{$k} = $v }
  }
}
our ($mode, $dir, $folder) = @job{qw(mode dir folder)};
($ipad, $opad) = seal_pads($job{seal}) if $mode eq 'tty' && length($job{seal} // '');

# mkdir -p, without File::Path.
sub mkpath {
  my $p = '';
  for my $part (split m{/}, $_[0], -1) {
    $p .= (length $p || substr($_[0], 0, 1) eq '/') ? "/$part" : $part;
    next if $part eq '' || -d $p;
    mkdir $p;
  }
  return -d $_[0];
}

# The job's folder made absolute once, from the login folder the session starts in (where rsync's own "cd" takes
# a relative --dir too): every path the program makes from it stays right after it enters the copy. The login
# folder is named as HOME names it when that is the same folder (a link on the way), else by its physical path.
sub absolute_folder {
  my ($d) = @_;
  return $d if $d =~ m{^/};
  my $login = Cwd::getcwd();
  refuse("cannot tell the login folder on the worker, which the relative folder $d is in (give the worker an absolute --dir)")
    unless defined $login && $login =~ m{^/};
  my $home = $ENV{HOME} // '';
  if ($home =~ m{^/}) {
    my @h = stat $home;
    my @l = stat $login;
    $login = $home if @h && @l && $h[0] == $l[0] && $h[1] == $l[1];
  }
  $d =~ s{^(?:\./)+}{};
  $d = length($d) && $d ne '.' ? "$login/$d" : $login;
  $d =~ s{/+}{/}g;
  $d =~ s{(.)/$}{$1};
  return $d;
}

sub random_hex {
  my $r = '';
  if (open(my $fh, '<:raw', '/dev/urandom')) { read($fh, $r, 16); close $fh }
  $r = join('', map { chr(int(rand(256))) } 1 .. 16) if length($r) < 16;
  return unpack('H*', $r);
}
