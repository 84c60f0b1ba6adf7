# The Perl that holds this machine's local slots (local-slots.ts). Node has no flock(2); a small Perl child
# does: the kernel drops its locks the moment it exits, and it exits when its stdin closes — when sparehand
# ends, however it ends (SIGKILL included). No stale slot or ticket is ever waited on; a pid is judged only to
# pass a waiting run that is stopped.
#
# Files, in the state folder's `local-slots/`: `slot.N` (held: locked, and naming its run), `queue/next` (the
# ticket counter), `queue/<15 digits>` (a waiting run's ticket, locked while it waits: its first line says whether
# it may run here (1 or 0), names the workers it waits for and the pids of its holder and its sparehand, its second
# names the run).
#
# What both programs share: nothing is opened through a link or waited on (O_NOFOLLOW, O_NONBLOCK), and only a file
# sparehand could have made is used (fstat after the open: a regular file of this user's with one name); another
# (a link to ~/.bashrc planted from inside a sandbox, a FIFO at `queue/next`, a hard link) is said once as
# `unsafe <name> <why>`, and its name only is taken away (`fix`). The folders are entered (chdir, then checked as
# entered) once: what is opened after is found in them, not by a path looked up again.
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
