# The worker's watcher of a copy (issue 39): a small detached Perl process per copy, started by a run and kept
# between runs, that watches every folder of the copy with inotify (Perl's syscall(): no module) and says, when a run
# asks ("takes"), which folders had an event since the last take. With it, a warm run on a copy nothing touched does
# not walk it (copy_state, claim.pl), and the report after the command looks only into the folders that had an
# event (main.pl). Files beside the copy, `<folder>.watch.*`: `.lock` (flock'd by the watcher while it lives:
# nobody else can hold it, so a dead watcher is seen at once, whatever its pid became), `.ping` (a run writes a
# random word there; the watcher sees that write in the same queue as the copy's events, after every event that
# happened before it), `.ans` (the answer: the word, `ok` (`new` the first time: it covers only the time since the watcher started, and no run trusts it), then the folders, each `f<path>\0`, and the folders made
# since, `n<path>\0`, which may have been filled before their watch was added: walked whole).
#
# It fails safe: any doubt ends the watcher (queue overflow, a watch it cannot add: the limit, no permission; a
# folder moved, whose watched path is then wrong; the copy gone), and a run that finds no live watcher, or gets no
# answer, walks as before. Only a Linux on x86_64 or aarch64 has one (the syscall numbers are per architecture); a
# worker elsewhere walks. What inotify cannot see and so the watcher never says: writes through a shared mapping
# (mmap), and writes through a hard link whose name is outside the copy.
#
# The watcher itself, a program of its own (exec'd as `perl -e`, so that it holds none of the run's handles).
use strict;
use warnings;
use Fcntl qw(:flock);
use POSIX ();
my $root = delete $ENV{SPAREHAND_WATCH_ROOT};
my $base = delete $ENV{SPAREHAND_WATCH_BASE};
# (Gone after 20 minutes that no run asked.)
my $idle = 1200;
exit 0 unless defined $root && defined $base && -d $root;
$0 = 'sparehand-watch';
use Config;
my %nr = (x86_64 => [294, 254], aarch64 => [26, 27]);
my ($arch) = ($Config{archname} // '') =~ /^(x86_64|aarch64)-linux/ or exit 0;
my ($init1, $add) = @{$nr{$arch}};
open(my $lk, '>>', "$base.lock") or exit 0;
my $locked;
for (1 .. 50) { last if $locked = flock($lk, LOCK_EX | LOCK_NB); select(undef, undef, undef, 0.01) }
exit 0 unless $locked;
my $fd = syscall($init1, 04000 | 02000000);
exit 0 if $fd < 0;
open(my $in, '<&=', $fd) or exit 0;
# IN_MODIFY ATTRIB CLOSE_WRITE MOVED_FROM MOVED_TO CREATE DELETE DELETE_SELF MOVE_SELF, ONLYDIR DONT_FOLLOW
my $mask = 0x2 | 0x4 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800 | 0x1000000 | 0x2000000;
my (%path, %dirty, %made);
sub add_one {
  my ($rel) = @_;
  my $p = length($rel) ? "$root/$rel" : $root;
  my $w = syscall($add, $fd + 0, $p, $mask + 0);
  if ($w < 0) { return 1 if $!{ENOENT} || $!{ENOTDIR}; exit 0 }
  $path{$w} = $rel;
  return 1;
}
# Watches a folder and all below it: each watched before it is read, so what is made in it meanwhile is either
# listed or an event.
sub add_tree {
  my @todo = @_;
  while (@todo) {
    my $rel = shift @todo;
    add_one($rel);
    my $p = length($rel) ? "$root/$rel" : $root;
    # (A folder it cannot list hides folders it would not watch: that is the end of it.)
    unless (opendir(my $dh, $p)) { next if $!{ENOENT} || $!{ENOTDIR}; exit 0 }
    opendir(my $dh, $p) or next;
    for my $n (readdir $dh) {
      next if $n eq '.' || $n eq '..';
      my $c = length($rel) ? "$rel/$n" : $n;
      push @todo, $c if !-l "$root/$c" && -d _;
    }
    closedir $dh;
  }
}
open(my $pf, '>>', "$base.ping") or exit 0;
close $pf;
my $pw = syscall($add, $fd + 0, "$base.ping", 0x8 + 0);
exit 0 if $pw < 0;
add_tree('');
if (open(my $pidf, '>', "$base.pid.$$")) { print $pidf $$; close $pidf; rename("$base.pid.$$", "$base.pid") }
my $last = time;
my $buf = '';
# The first answer covers only the time since the watches were all added, not since the last run: a run does not
# trust it.
my $first = 1;
while (1) {
  exit 0 if time - $last > $idle;
  my $rin = '';
  vec($rin, $fd, 1) = 1;
  my $n = select(my $rout = $rin, undef, undef, 60);
  next unless $n && $n > 0;
  my $got = sysread($in, my $chunk, 65536);
  next unless $got;
  $buf .= $chunk;
  while (length($buf) >= 16) {
    my ($w, $m, undef, $len) = unpack('l L L L', $buf);
    last if length($buf) < 16 + $len;
    my $name = unpack('Z*', substr($buf, 16, $len));
    substr($buf, 0, 16 + $len) = '';
    exit 0 if $m & 0x4000;
    if ($w == $pw) {
      next unless $m & 0x8;
      open(my $ph, '<', "$base.ping") or next;
      my $word = <$ph> // '';
      close $ph;
      next unless $word =~ /^([0-9a-f]{8,64})$/;
      $word = $1;
      my $ans = "$word\n" . ($first ? 'new' : 'ok') . "\n" . join('', map { "f$_\0" } keys %dirty) . join('', map { "n$_\0" } keys %made);
      open(my $ah, '>', "$base.ans.$$") or exit 0;
      print $ah $ans;
      close $ah or exit 0;
      rename("$base.ans.$$", "$base.ans") or exit 0;
      (%dirty, %made) = ();
      $first = 0;
      $last = time;
      next;
    }
    my $rel = $path{$w};
    if ($m & 0x8000) { delete $path{$w}; exit 0 if defined $rel && !length $rel; next }
    next unless defined $rel;
    # A folder moved (its watched path, and those below it, would be wrong), or the copy itself gone or moved.
    exit 0 if $m & 0x800 || ($m & 0x400 && !length $rel) || ($m & 0x40 && $m & 0x40000000);
    $dirty{$rel} = 1;
    $dirty{length($rel) ? "$rel/$name" : $name} = 1 if length $name;
    if ($m & (0x100 | 0x80) && $m & 0x40000000 && length $name) {
      my $c = length($rel) ? "$rel/$name" : $name;
      $made{$c} = 1;
      add_tree($c);
    }
  }
}
