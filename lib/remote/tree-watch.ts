// The worker's side of the sync back: a Perl program that records the slot's tree right before the command,
// runs it, records the tree again and sends exactly what the command changed. Perl because every Linux
// distribution with git and every Mac has it with Digest::MD5 and Time::HiRes; the worker needs nothing else.
//
// perl -e TREE_WATCH TREE SKIP NONCE OUT COMMAND...   (in the slot's folder)
//   TREE   the last record of the tree (beside the slot): a file whose stat is unchanged keeps its hash
//   SKIP   what is never walked or sent (sync-rules.ts skipRules): three regular expressions on three lines,
//          over an entry's name, its name again and then its whole path; a folder's name ends in '/'
//   NONCE  names this run's results block; OUT: '-' for stdout, else a file (terminal mode)
//   COMMAND...  run with system(); its exit status is reported and is perl's own
//
// The results block (read by lib/sync-back/results.ts):
//   "\0sparehand-results NONCE ran STATUS deps=START:END\n"  (when the worker installed dependencies before the
//     command: the wall-clock seconds it started and ended, else empty)
//   per change: "OP TYPE MODE MTIME SIZE BASE SAME PATHLEN TARGETLEN\n" PATH TARGET [CONTENT MD5 "\n"]
//     OP: C created, M content changed, T only mtime or mode changed, D deleted; TYPE: f file, l link, d folder
//     BASE: md5 of the content (a link's target) before the command, '-' for C; SAME: index of an earlier
//     record with the same inode (a hard link: no content), else -1; CONTENT and its MD5 (or "short" when the
//     file shrank while sent) only when SIZE > 0
//   "end COUNT\n"
//
// Changes are found by stat (inode, size, mtime, ctime, mode): ctime is set by the kernel on every change and
// cannot be set back, and the walk before the command waits until the clock has passed every ctime it saw, so
// whatever the command writes gets a ctime no recorded file has.
export const TREE_WATCH = String.raw`
use strict;
use warnings;

my ($tree, $skip, $nonce, $out, @command) = @ARGV;
BEGIN {
  unless (eval { require Time::HiRes; require Digest::MD5; 1 }) {
    my $why = "the worker's perl lacks Time::HiRes or Digest::MD5, which sparehand needs to find what the command changed (install perl's standard modules there: the package perl)";
    my $fh = \*STDOUT;
    open($fh, '>', $ARGV[3]) if $ARGV[3] ne '-';
    print $fh "\0sparehand-results $ARGV[2] refused $why\n";
    exit 125;
  }
}
my ($namere, $lastre, $pathre) = map { length($_) ? qr/$_/ : undef } (split(/\n/, $skip, -1), '', '', '')[0 .. 2];

sub md5_file {
  open(my $fh, '<:raw', $_[0]) or return 'unreadable';
  my $h = Digest::MD5->new->addfile($fh)->hexdigest;
  close $fh;
  return $h;
}

# path => 'd' for a folder; for a file or link, its stat packed (type ino size mtime ctime mode: 37 bytes)
# followed by the md5 of its content (a link's: of its target).
sub walk {
  my ($old) = @_;
  my %tree;
  my $maxc = 0;
  my $kept = 0;
  my @dirs = ('');
  my @unreadable;
  while (@dirs) {
    my $dir = pop @dirs;
    my $dh;
    unless (opendir($dh, length($dir) ? $dir : '.')) { push @unreadable, $dir; next }
    my @names = readdir $dh;
    closedir $dh;
    for my $name (@names) {
      next if $name eq '.' || $name eq '..';
      my $p = length($dir) ? "$dir/$name" : $name;
      my @st = Time::HiRes::lstat($p);
      unless (@st) {
        # Gone is gone; anything else (a folder without x) hides the entry, which stays as recorded.
        if (!$!{ENOENT} && defined(my $o = $old->{$p})) {
          $tree{$p} = $o;
          push @unreadable, $p if $o eq 'd';
        }
        next;
      }
      my $fmt = $st[2] & 0170000;
      my $type = $fmt == 0100000 ? 'f' : $fmt == 0040000 ? 'd' : $fmt == 0120000 ? 'l' : next;
      my $probe = $type eq 'd' ? "$name/" : $name;
      next if ($namere && $probe =~ $namere) || ($lastre && $probe =~ $lastre && ($type eq 'd' ? "$p/" : $p) =~ $pathre);
      if ($type eq 'd') {
        $tree{$p} = 'd';
        $kept++ if ($old->{$p} // '') eq 'd';
        push @dirs, $p;
        next;
      }
      $maxc = $st[10] if $st[10] > $maxc;
      my $s = pack('a1 Q Q d d L', $type, $st[1], $st[7], $st[9], $st[10], $st[2] & 07777);
      my $o = $old->{$p};
      if (defined $o && substr($o, 0, 37) eq $s) { $tree{$p} = $o; $kept++ }
      else { $tree{$p} = $s . ($type eq 'f' ? md5_file($p) : Digest::MD5::md5_hex(readlink($p) // '')) }
    }
  }
  # A folder that cannot be read (the command made it so) hides what is in it, which is not deleted: what was
  # recorded under it stays as it was.
  for my $dir (@unreadable) {
    my $under = length($dir) ? "$dir/" : '';
    for my $p (keys %$old) { $tree{$p} = $old->{$p} if substr($p, 0, length $under) eq $under && !exists $tree{$p} }
  }
  # Whether the tree differs from the one it was compared with (nothing to save when it does not).
  my $changed = $kept != keys(%tree) || keys(%tree) != keys(%$old);
  return (\%tree, $maxc, $changed);
}

# The last record: "<entry length byte><entry><path>\0" per path.
sub load {
  my %tree;
  open(my $fh, '<:raw', $tree) or return \%tree;
  local $/;
  my $data = <$fh> // '';
  close $fh;
  my ($i, $len) = (0, length $data);
  while ($i < $len) {
    my $n = ord(substr($data, $i, 1));
    my $z = index($data, "\0", $i + 1 + $n);
    last if $z < 0;
    $tree{substr($data, $i + 1 + $n, $z - $i - 1 - $n)} = substr($data, $i + 1, $n);
    $i = $z + 1;
  }
  return \%tree;
}

sub save {
  my ($t) = @_;
  open(my $fh, '>:raw', "$tree.new") or return;
  while (my ($p, $e) = each %$t) { print $fh chr(length $e), $e, $p, "\0" }
  close($fh) and rename("$tree.new", $tree);
}

my ($before, $maxc, $unlike) = walk(load());
for (1 .. 4000) {
  open(my $fh, '>', "$tree.tick") or last;
  print $fh 'x';
  close $fh;
  my @s = Time::HiRes::lstat("$tree.tick");
  last if @s && $s[10] > $maxc + 0.00002;
  Time::HiRes::sleep(0.0005);
}

my $rc = system { $command[0] } @command;
my $status = $rc == -1 ? 127 : ($? & 127) ? 128 + ($? & 127) : $? >> 8;

my ($after, undef, $changed) = walk($before);
my (@made, @gone);
my $kept = 0;
while (my ($p, $a) = each %$after) {
  my $b = $before->{$p};
  if (defined $b && $a eq $b) { $kept++; next }
  if (!defined $b || substr($a, 0, 1) ne substr($b, 0, 1)) { push @made, ['C', $p]; next }
  $kept++;
  if (substr($a, 37) ne substr($b, 37)) { push @made, ['M', $p]; next }
  my (undef, undef, undef, $am, undef, $amode) = unpack('a1 Q Q d d L', $a);
  my (undef, undef, undef, $bm, undef, $bmode) = unpack('a1 Q Q d d L', $b);
  push @made, ['T', $p] if $am != $bm || $amode != $bmode;
}
if ($kept != keys %$before) {
  while (my ($p, $b) = each %$before) {
    my $a = $after->{$p};
    push @gone, $p if !defined $a || substr($a, 0, 1) ne substr($b, 0, 1);
  }
}

my $fh;
if ($out eq '-') { $fh = \*STDOUT } else { open($fh, '>:raw', $out) or die "sparehand: cannot write $out: $!\n" }
binmode $fh;
print $fh "\0sparehand-results $nonce ran $status deps=", ($ENV{SPAREHAND_DEPS_TIME} // ''), "\n";
my $n = 0;
# Deletions deepest first; then creations and changes, parents before children.
for my $p (sort { $b cmp $a } @gone) {
  my $b = $before->{$p};
  my $t = substr($b, 0, 1);
  print $fh join(' ', 'D', $t, 0, 0, 0, $t eq 'd' ? '-' : substr($b, 37), -1, length($p), 0), "\n", $p;
  $n++;
}
my %sent;
for my $r (sort { $a->[1] cmp $b->[1] } @made) {
  my ($op, $p) = @$r;
  my $a = $after->{$p};
  my ($t, $ino, $size, $mtime, undef, $mode) = $a eq 'd' ? ('d', 0, 0, 0, 0, 0) : unpack('a1 Q Q d d L', $a);
  my $base = $op eq 'C' ? '-' : substr($before->{$p}, 37);
  my $target = $t eq 'l' ? (readlink($p) // '') : '';
  $size = 0 if $op eq 'T' || $t ne 'f';
  my $same = -1;
  if ($size > 0 && exists $sent{$ino}) { ($same, $size) = ($sent{$ino}, 0) }
  print $fh join(' ', $op, $t, $mode, sprintf('%.6f', $mtime), $size, $base, $same, length($p), length($target)), "\n", $p, $target;
  if ($size > 0) {
    $sent{$ino} = $n;
    my $md5 = Digest::MD5->new;
    my $left = $size;
    if (open(my $in, '<:raw', $p)) {
      while ($left > 0) {
        my $got = read($in, my $buf, $left < 1048576 ? $left : 1048576);
        last unless $got;
        print $fh $buf;
        $md5->add($buf);
        $left -= $got;
      }
      close $in;
    }
    print $fh "\0" x $left if $left > 0;
    print $fh $left > 0 ? 'short' : $md5->hexdigest, "\n";
  }
  $n++;
}
print $fh "end $n\n";
close($fh) or die "sparehand: cannot write the results: $!\n";
save($after) if $changed || $unlike;
exit $status;
`;
