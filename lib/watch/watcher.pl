# The per-project watcher (lib/watch/journal.ts starts it): a small Perl process that asks the kernel (inotify,
# Linux on x86_64 or arm64) to say what changes in the project, and appends each change to a journal, so that a
# warm run knows what changed since the last one without looking at every file (lib/send/warm-send.ts).
# inotify is reached through perl's syscall(): Node's own fs.watch drops the kernel's "queue overflowed" event
# (libuv looks its watch up and finds none), and a watcher that can lose changes without saying so must not exist.
#
# The journal, `.sparehand/watch/journal`: a header line `sparehand-watch 1 ID PID SKIP\n` (SKIP: the hash of the
# folders it was told not to watch), then records, each a type letter, a path relative to the project and a NUL:
#   c PATH   PATH's content or attributes changed (an empty PATH: the project folder itself)
#   s PATH   PATH was made, deleted or moved (its folder's entries changed); for a folder moved or made, everything
#            found in it follows as `s` too (what was made in it before its watch was in place)
#   r        every folder is watched: changes from here on are all in the journal
#   k NAME   the barrier: a file NAME made in `.sparehand/watch/cookies/`. The kernel queues events in the order
#            they happen, so every change made before NAME was written is in the journal before `k NAME`
#   ! WHY    the watcher lost track (the kernel's queue overflowed, the limit of watches, a folder it cannot
#            read, the project moved, the journal grew too big) and has ended: nothing after the header can be trusted
# Not watched: `.sparehand/` (but for its cookies folder), `.git/objects`, `.git/logs`, and the folders named in
# the skip file (what git ignores as a whole folder: never sent, so never in the fingerprint). It ends on its own
# after an hour without a barrier, when another watcher has taken the journal, or when the project is gone.
# Known blind spots (docs/performance.md): a file written through a hard link from outside the project, or through
# a memory map after it was closed; a network file system's changes made by another machine.
use strict; use warnings;
use Config; use POSIX ();
my ($root, $skipfile, $id, $skiphash) = @ARGV;
$SIG{$_} = 'IGNORE' for qw(HUP INT PIPE);
$0 = "sparehand-watch $root";
chdir $root or exit 2;
my $dir = '.sparehand/watch';
my ($init, $add) = $Config{archname} =~ /^x86_64-linux/ ? (294, 254) : $Config{archname} =~ /^aarch64-linux/ ? (26, 27) : ();
sysopen(my $j, "$dir/journal.$$", POSIX::O_WRONLY() | POSIX::O_CREAT() | POSIX::O_TRUNC() | POSIX::O_APPEND(), 0600) or exit 2;
syswrite($j, "sparehand-watch 1 $id $$ $skiphash\n");
rename("$dir/journal.$$", "$dir/journal") or exit 2;
unlink "$dir/starting";
sub lost { syswrite($j, "!$_[0]\0"); exit 0 }
lost('cannot watch here: inotify through perl needs Linux on x86_64 or arm64') unless defined $init;
my %skip = ('.sparehand' => 1, '.git/objects' => 1, '.git/logs' => 1);
if (open(my $s, '<', $skipfile)) { local $/ = "\0"; while (my $p = <$s>) { chomp $p; $skip{$p} = 1 if length $p } close $s }
unlink $skipfile;
my $fd = syscall($init, 04000 | 02000000);
lost("cannot watch here: inotify_init1 failed ($!)") if $fd < 0;
open(my $in, '<&=', $fd) or lost('cannot read inotify');
# IN_MODIFY IN_ATTRIB IN_CLOSE_WRITE IN_MOVED_FROM IN_MOVED_TO IN_CREATE IN_DELETE IN_DELETE_SELF IN_MOVE_SELF,
# IN_ONLYDIR IN_DONT_FOLLOW IN_EXCL_UNLINK.
my $MASK = 0x2 | 0x4 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800 | 0x1000000 | 0x2000000 | 0x4000000;
my (%path_of, @out);
# A watch on folder REL (relative; '' the project): its wd, undef when it is gone, or the watcher ends.
sub add {
  my ($rel) = @_;
  # A path that starts with "./" is never taken for a number by syscall() (which wants a variable it could write).
  my $path = length($rel) ? "./$rel" : './';
  my $wd = syscall($add, $fd, $path, $MASK);
  if ($wd < 0) {
    return undef if $!{ENOENT} || $!{ENOTDIR};
    lost($!{ENOSPC} ? 'the limit of inotify watches was reached (fs.inotify.max_user_watches)' : "cannot watch $rel ($!)");
  }
  $path_of{$wd} = $rel;
  return $wd;
}
# Watches REL and every folder below; with REPORT, everything found there is journaled as made.
sub watch_tree {
  my ($rel, $report) = @_;
  my @todo = ($rel);
  while (defined(my $d = shift @todo)) {
    next if $skip{$d};
    # The watch first, then the listing: whatever is made after is an event, whatever was there is listed.
    defined add($d) or next;
    opendir(my $dh, length($d) ? "./$d" : '.') or next;
    for my $n (readdir $dh) {
      next if $n eq '.' || $n eq '..';
      my $p = length($d) ? "$d/$n" : $n;
      push @out, "s$p\0" if $report;
      my @st = lstat("./$p");
      push @todo, $p if @st && POSIX::S_ISDIR($st[2]);
    }
    closedir $dh;
  }
}
my $root_wd = add('');
mkdir "$dir/cookies", 0700;
my $cookie_wd = add("$dir/cookies");
watch_tree('', 0);
push @out, "r\0";
sub flush { if (@out) { syswrite($j, join('', @out)); @out = () } lost('the journal grew too big') if -s $j > 64 * 1024 * 1024 }
flush();
my ($last_cookie, $last_check) = (time, time);
while (1) {
  my $rin = '';
  vec($rin, $fd, 1) = 1;
  my $ready = select(my $rout = $rin, undef, undef, 30);
  if (time - $last_check >= 30) {
    $last_check = time;
    # Another watcher took the journal, the project is gone, or nobody asked for an hour: end.
    open(my $h, '<', "$dir/journal") or exit 0;
    my $line = <$h> // '';
    close $h;
    exit 0 unless $line =~ /^sparehand-watch 1 \Q$id\E /;
    lost('idle for an hour') if time - $last_cookie > 3600;
  }
  next unless $ready && $ready > 0;
  my $got = sysread($in, my $buf, 256 * 1024);
  next if !defined $got && ($!{EAGAIN} || $!{EINTR});
  lost("cannot read inotify ($!)") unless $got;
  my $i = 0;
  while ($i + 16 <= length $buf) {
    my ($wd, $mask, undef, $len) = unpack('i L L L', substr($buf, $i, 16));
    my $name = substr($buf, $i + 16, $len);
    $name =~ s/\0+$//;
    $i += 16 + $len;
    lost('the kernel dropped changes (its inotify queue overflowed)') if $mask & 0x4000;
    lost('the project folder is on a file system that was unmounted') if $mask & 0x2000;
    if (defined $cookie_wd && $wd == $cookie_wd) {
      if (($mask & (0x100 | 0x80)) && length $name) { push @out, "k$name\0"; unlink "$dir/cookies/$name"; $last_cookie = time }
      next;
    }
    my $d = $path_of{$wd};
    next unless defined $d;
    if ($mask & 0x8000) { delete $path_of{$wd}; lost('the project folder is gone') if $wd == $root_wd; next }
    if ($mask & (0x400 | 0x800)) {
      lost('the project folder was moved or deleted') if $wd == $root_wd;
      push @out, "s$d\0";
      next;
    }
    my $p = length($d) ? (length($name) ? "$d/$name" : $d) : $name;
    my $made = $mask & (0x100 | 0x80);
    push @out, (($mask & (0x100 | 0x200 | 0x40 | 0x80)) ? 's' : 'c') . "$p\0";
    watch_tree($p, 1) if $made && ($mask & 0x40000000) && length($name);
  }
  flush();
}
