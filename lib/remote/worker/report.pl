# The worker's side of the sync back (part of the worker program, lib/remote/worker/program.ts): the slot's tree
# recorded right before the command and again right after it, and exactly what the command changed sent back
# in frames. lib/remote/report-reader.ts reads them here; decide.ts judges each change; apply.ts writes it.
#
# The record (`<folder>.tree` beside the slot): path => 'd' for a folder; for a file, link or special file its
# stat packed (type ino size mtime ctime mode: 37 bytes) and the md5 of its content (a link's: of its target). A
# file whose stat is unchanged keeps its hash, so only what changed is read. What changed since it was last saved
# whole is in `<folder>.tree.log` beside it (load_tree). Changes are found by stat: ctime is set by the kernel on
# every change and cannot be set back, and the walk before the command waits until the clock has passed every ctime
# it saw, so whatever the command writes gets a ctime no recorded file has.
#
# Frames, per change: `chg` "OP TYPE MODE MTIME SIZE BASE SAME PATHLEN\n" PATH TARGET, where OP is C created,
# M content changed, T only mtime or mode changed, D deleted; TYPE f file, l link, d folder, s special (a FIFO,
# socket or device: named here, never made); BASE the md5 before the command ('-' for C); SAME the index of an
# earlier change with the same inode (a hard link: no content), else -1. For a file's content (SIZE > 0): `dat`
# frames, `hole N` for N zero bytes (a sparse file stays sparse), then `sum MD5` ('short' when the file shrank
# while it was read). After the last change, `end COUNT`. Then sparehand may ask `want INDEX` for the content
# of a file it has no copy of (a rebuilt output that is missing here), answered with `got INDEX SIZE` and content
# frames (or `gone INDEX` when it is no file any more), and ends with `bye`.
my ($namere, $lastre, $pathre) = map { length($_) ? qr/$_/ : undef } (split(/\n/, $job{skip} // '', -1), '', '', '')[0 .. 2];

sub md5_file {
  open(my $fh, '<:raw', $_[0]) or return 'unreadable';
  my $h = Digest::MD5->new->addfile($fh)->hexdigest;
  close $fh;
  return $h;
}

sub walk {
  my ($old) = @_;
  my %tree;
  my ($maxc, $kept) = (0, 0);
  my @dirs = ('');
  my @unreadable;
  while (@dirs) {
    my $d = pop @dirs;
    my $dh;
    unless (opendir($dh, length($d) ? $d : '.')) { push @unreadable, $d; next }
    my @names = readdir $dh;
    closedir $dh;
    for my $name (@names) {
      next if $name eq '.' || $name eq '..';
      my $p = length($d) ? "$d/$name" : $name;
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
      my $type = $fmt == 0100000 ? 'f' : $fmt == 0040000 ? 'd' : $fmt == 0120000 ? 'l' : 's';
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
      else { $tree{$p} = $s . ($type eq 'f' ? md5_file($p) : $type eq 'l' ? Digest::MD5::md5_hex(readlink($p) // '') : 'special') }
    }
  }
  # A folder that cannot be read (the command made it so) hides what is in it, which is not deleted.
  for my $d (@unreadable) {
    my $under = length($d) ? "$d/" : '';
    for my $p (keys %$old) { $tree{$p} = $old->{$p} if substr($p, 0, length $under) eq $under && !exists $tree{$p} }
  }
  my $changed = $kept != keys(%tree) || keys(%tree) != keys(%$old);
  return (\%tree, $maxc, $changed);
}

# The record: "<entry length byte><entry><path>\0" per path, in <folder>.tree, and what changed since it was saved
# whole in <folder>.tree.log (added to, so that a small change costs no load and save of it all): a first line
# "L <the record's identity>" (a log written for a record saved since is not applied), then entries as in the record,
# a zero length saying the path is gone.
sub parse_entries {
  my ($data, $tree) = @_;
  my ($i, $len) = (0, length $data);
  while ($i < $len) {
    my $n = ord(substr($data, $i, 1));
    my $z = index($data, "\0", $i + 1 + $n);
    last if $z < 0;
    my $p = substr($data, $i + 1 + $n, $z - $i - 1 - $n);
    if ($n) { $tree->{$p} = substr($data, $i + 1, $n) } else { delete $tree->{$p} }
    $i = $z + 1;
  }
}

sub slurp { open(my $fh, '<:raw', $_[0]) or return undef; local $/; my $d = <$fh> // ''; close $fh; return $d }

# The record file's identity (its inode, size and times), which its log names.
sub tree_id { my @s = Time::HiRes::stat($_[0]); return @s ? sprintf('L %d %d %.4f %.4f', $s[1], $s[7], $s[9], $s[10]) : '' }

# The log of the record in $file, as its entries (undef when there is none that goes with the record).
sub tree_log {
  my ($file) = @_;
  my $log = slurp("$file.log") // return undef;
  my $nl = index($log, "\n");
  return undef if $nl < 0 || substr($log, 0, $nl) ne tree_id($file);
  return substr($log, $nl + 1);
}

sub load_tree {
  my ($file) = @_;
  my %tree;
  my $data = slurp($file) // return \%tree;
  parse_entries($data, \%tree);
  my $log = tree_log($file);
  parse_entries($log, \%tree) if defined $log;
  return \%tree;
}

# Whether the record was written.
sub save_tree {
  my ($file, $t) = @_;
  open(my $fh, '>:raw', "$file.new") or return 0;
  while (my ($p, $e) = each %$t) { print $fh chr(length $e), $e, $p, "\0" or return 0 }
  # (The new record has an identity of its own: a log left beside it is not applied, whether or not it goes.)
  return 0 unless close($fh) && rename("$file.new", $file);
  unlink "$file.log";
  return 1;
}

# What changed (path => entry, undef for a path gone) added to the record: appended to its log, or with the log
# past an eighth of the record the record saved whole (loaded first unless $tree holds it, with every change so far).
# Whether it was written.
sub record_changes {
  my ($file, $delta, $tree) = @_;
  return 1 unless %$delta;
  my $body = join('', map { my $e = $delta->{$_} // ''; chr(length $e) . $e . $_ . "\0" } keys %$delta);
  my $size = -s $file;
  my $log = $size ? tree_log($file) : undef;
  my $id = tree_id($file);
  if (!$size || length($log // '') + length($body) > $size / 8 + 65536) {
    $tree //= load_tree($file);
    apply_delta($tree, $delta);
    return save_tree($file, $tree);
  }
  # A whole new log each time, renamed into place: a run killed while writing it leaves the one before.
  open(my $fh, '>:raw', "$file.log.new") or return 0;
  print $fh $id, "\n", $log // '', $body;
  return close($fh) && rename("$file.log.new", "$file.log");
}

# Waits until the clock has passed every ctime recorded (so a write by the command is always seen).
sub tick_past {
  my ($file, $maxc) = @_;
  for (1 .. 4000) {
    open(my $fh, '>', $file) or last;
    print $fh 'x';
    close $fh;
    my @s = Time::HiRes::lstat($file);
    last if @s && $s[10] > $maxc + 0.00002;
    Time::HiRes::sleep(0.0005);
  }
}

# A file's content as frames: data in pieces, runs of zeros as holes. Returns the md5, or 'short'.
sub send_content {
  my ($p, $size) = @_;
  my $md5 = Digest::MD5->new;
  my $left = $size;
  my $zeros = "\0" x 65536;
  if (open(my $fh, '<:raw', $p)) {
    while ($left > 0) {
      my $got = sysread($fh, my $buf, $left < 1048576 ? $left : 1048576);
      last unless $got;
      $md5->add($buf);
      $left -= $got;
      my $at = 0;
      while ($at < $got) {
        my $piece = substr($buf, $at, 65536);
        my $n = length $piece;
        if ($n == 65536 && $piece eq $zeros) { put('hole', $n) }
        else { put('dat', $piece) }
        $at += $n;
      }
    }
    close $fh;
  }
  if ($left > 0) { put('hole', $left); return 'short' }
  return $md5->hexdigest;
}

# What changed from $before to $after: every path of both, or only those in $keys (an incremental pass: $after then
# holds just those, undef for a path that is gone).
sub differences {
  my ($before, $after, $keys) = @_;
  my (@made, @gone);
  my $kept = 0;
  my @paths = $keys ? @$keys : keys %$after;
  for my $p (@paths) {
    my $a = $after->{$p};
    my $b = $before->{$p};
    if (!defined $a) { push @gone, $p if defined $b; next }
    if (defined $b && $a eq $b) { $kept++; next }
    if (!defined $b || substr($a, 0, 1) ne substr($b, 0, 1)) {
      push @made, ['C', $p];
      push @gone, $p if $keys && defined $b;
      next;
    }
    $kept++;
    if (substr($a, 37) ne substr($b, 37)) { push @made, ['M', $p]; next }
    my (undef, undef, undef, $am, undef, $amode) = unpack('a1 Q Q d d L', $a);
    my (undef, undef, undef, $bm, undef, $bmode) = unpack('a1 Q Q d d L', $b);
    push @made, ['T', $p] if $am != $bm || $amode != $bmode;
  }
  if (!$keys && $kept != keys %$before) {
    while (my ($p, $b) = each %$before) {
      my $a = $after->{$p};
      push @gone, $p if !defined $a || substr($a, 0, 1) ne substr($b, 0, 1);
    }
  }
  return (\@made, \@gone);
}

# --- The incremental pass: instead of walking the whole tree in Perl twice, find (in C) lists what changed since a
# marker file (ctime newer than its mtime: the kernel sets ctime on every change, and nobody can set it back), and
# only those paths are looked at. A folder among them is listed to see what was deleted in it. Undef when find
# cannot be used here (then the whole tree is walked, as on a first run).

# Whether a path (a folder's ending in '/') or a folder above it is skipped (the walk's rules, for one path).
sub skipped_path {
  my ($p, $is_dir) = @_;
  my @parts = split m{/}, $p;
  for my $i (0 .. $#parts) {
    my $dir = $i < $#parts || $is_dir;
    my $name = $parts[$i] . ($dir ? '/' : '');
    my $path = join('/', @parts[0 .. $i]) . ($dir ? '/' : '');
    return 1 if ($namere && $name =~ $namere) || ($lastre && $name =~ $lastre && $path =~ $pathre);
  }
  return 0;
}

# The folders never walked into (the job's prune names, simple globs) as one extended regular expression over find's
# path, or undef when one is beyond what this converts. GNU find tests every entry's name against each -name (it
# puts name tests first): 24 of them cost 0.25–0.45 s more on 100,000 files here, one -regex about 0.05 s.
sub prune_regex {
  my @alts;
  for my $g (@{$many{prune}}) {
    my ($s, $re) = ($g, '');
    while (length $s) {
      if ($s =~ s/^\[([!^]?)([A-Za-z0-9_.-]+)\]//) { $re .= '[' . ($1 ne '' ? '^/' : '') . $2 . ']' }
      elsif ($s =~ s/^\*//) { $re .= '[^/]*' }
      elsif ($s =~ s/^\?//) { $re .= '[^/]' }
      elsif ($s =~ s/^([A-Za-z0-9_-]+)//) { $re .= $1 }
      elsif ($s =~ s/^\.//) { $re .= '[.]' }
      else { return undef }
    }
    return undef unless length $re;
    push @alts, $re;
  }
  return '.*/(' . join('|', @alts) . ')';
}

# Whether find here takes -regextype posix-extended (GNU find does; a Mac's and BusyBox's do not): asked once per
# copy, the answer kept beside it.
sub find_ere {
  my ($cache) = @_;
  my $known = slurp($cache);
  return $known eq '1' if defined $known && $known =~ /^[01]$/;
  my $pid = open(my $fh, '-|');
  return 0 unless defined $pid;
  if (!$pid) { open(STDERR, '>', '/dev/null'); exec { 'find' } 'find', '.', '-maxdepth', '0', '-regextype', 'posix-extended', '-regex', '[.]|x+', '-print'; exit 127 }
  my $out = join('', <$fh>);
  close $fh;
  my $yes = $? == 0 && $out eq ".\n" ? 1 : 0;
  if (open(my $w, '>', "$cache.$$")) { print $w $yes; close $w; rename("$cache.$$", $cache) }
  return $yes;
}

sub newer_than {
  my ($ref) = @_;
  return undef unless -e $ref;
  my @prune;
  my $re = @{$many{prune}} ? prune_regex() : undef;
  (my $cache = $ref) =~ s/[.][a-z]+$/.find/;
  if (defined $re && find_ere($cache)) { @prune = ('-regextype', 'posix-extended', '-regex', $re) }
  else { for my $g (@{$many{prune}}) { push @prune, '-o' if @prune; push @prune, '-name', $g } @prune = ('(', @prune, ')') if @prune }
  # 1 from a find: some folder could not be read (its entries stay as recorded); anything more: it did not run.
  my $out = find_split_all(\@prune, ['-cnewer', $ref, '-print0']) // return undef;
  return [map { $_ eq '.' ? '' : substr($_, 2) } @$out];
}

# What the paths find listed hold now, against the record: path => new entry, or undef for one gone.
sub changed_entries {
  my ($tree, $cands) = @_;
  my (%delta, @dirs, $children, %seen);
  my @todo = @$cands;
  while (@todo) {
    my $p = shift @todo;
    next if $seen{$p}++;
    if ($p eq '') { push @dirs, ''; next }
    my @st = Time::HiRes::lstat($p);
    next unless @st;
    my $fmt = $st[2] & 0170000;
    my $type = $fmt == 0100000 ? 'f' : $fmt == 0040000 ? 'd' : $fmt == 0120000 ? 'l' : 's';
    next if skipped_path($p, $type eq 'd');
    if ($type eq 'd') {
      push @dirs, $p;
      next if ($tree->{$p} // '') eq 'd';
      $delta{$p} = 'd';
      # A folder new to the record (made, or moved here: what it holds kept its ctimes) is looked at whole.
      if (opendir(my $dh, $p)) { push @todo, map { "$p/$_" } grep { $_ ne '.' && $_ ne '..' } readdir $dh; closedir $dh }
      next;
    }
    my $s = pack('a1 Q Q d d L', $type, $st[1], $st[7], $st[9], $st[10], $st[2] & 07777);
    my $o = $tree->{$p};
    next if defined $o && substr($o, 0, 37) eq $s;
    $delta{$p} = $s . ($type eq 'f' ? md5_file($p) : $type eq 'l' ? Digest::MD5::md5_hex(readlink($p) // '') : 'special');
  }
  # What a listed folder no longer holds: deleted, with all the record had under it.
  for my $d (@dirs) {
    opendir(my $dh, length($d) ? $d : '.') or next;
    my %here = map { $_ => 1 } readdir $dh;
    closedir $dh;
    if (!$children) {
      $children = {};
      for my $k (keys %$tree) { my $i = rindex($k, '/'); push @{$children->{$i < 0 ? '' : substr($k, 0, $i)}}, $k }
    }
    my @gone = grep { !$here{substr($_, length($d) ? length($d) + 1 : 0)} } @{$children->{$d} // []};
    while (my $g = shift @gone) {
      next if exists $delta{$g};
      $delta{$g} = undef;
      push @gone, @{$children->{$g} // []};
    }
  }
  return \%delta;
}

# What sparehand's own changes (lib/remote/worker/main.pl own_changes) left at their paths and every folder above
# them, found without the record: path => its stat now ('' for one gone), the record's entries for them (path =>
# entry, undef for one gone; the copy's own folder has none), and the newest ctime among them. After the command, a
# path find lists whose stat is still this one was changed by them alone, not by the command. $put: for a file put
# at $path, [md5, size, mtime] of what was written (taken while it still has that size and mtime).
sub own_entries {
  my ($path, $put) = @_;
  my (%stat, %entries);
  my $maxc = 0;
  my @parts = split m{/}, $path;
  $stat{join('/', @parts[0 .. $_])} = 1 for 0 .. $#parts;
  $stat{''} = 1;
  for my $p (keys %stat) {
    my @st = Time::HiRes::lstat(length $p ? $p : '.');
    $maxc = $st[10] if @st && $st[10] > $maxc;
    if ($put && $p eq $path && !skipped_path($p, 0)) {
      if (@st && ($st[2] & 0170000) == 0100000 && $st[7] == $put->[1] && abs($st[9] - $put->[2]) < 0.000002) {
        $stat{$p} = stat_key(@st);
        $entries{$p} = $stat{$p} . $put->[0];
      } else {
        # Changed or gone already (another size or mtime than written): the record has what was put, with a stat no
        # file has, and the change is the command's.
        $stat{$p} = '';
        $entries{$p} = pack('a1 Q Q d d L', 'f', 0, $put->[1], $put->[2], 0, 0) . $put->[0];
      }
      next;
    }
    unless (@st) { $stat{$p} = ''; $entries{$p} = undef if length $p; next }
    my $s = stat_key(@st);
    my $type = substr($s, 0, 1);
    $stat{$p} = $s;
    next if !length($p) || skipped_path($p, $type eq 'd');
    $entries{$p} = $type eq 'd' ? 'd' : $s . ($type eq 'f' ? md5_file($p) : $type eq 'l' ? Digest::MD5::md5_hex(readlink($p) // '') : 'special');
  }
  return (\%stat, \%entries, $maxc);
}

# Of the paths find listed, those the command may have changed: not as sparehand's own changes left them ($stat:
# own_entries), and not skipped (the record never holds those).
sub not_own {
  my ($cands, $stat) = @_;
  my @out;
  for my $p (@$cands) {
    my @st = Time::HiRes::lstat(length $p ? $p : '.');
    next if @st && (stat_key(@st) eq ($stat->{$p} // '') || (length($p) && skipped_path($p, ($st[2] & 0170000) == 0040000)));
    push @out, $p;
  }
  return \@out;
}

# A path's stat as the record packs it (lstat's fields).
sub stat_key {
  my $fmt = $_[2] & 0170000;
  my $type = $fmt == 0100000 ? 'f' : $fmt == 0040000 ? 'd' : $fmt == 0120000 ? 'l' : 's';
  return pack('a1 Q Q d d L', $type, $_[1], $_[7], $_[9], $_[10], $_[2] & 07777);
}

# Applies what changed to the record.
sub apply_delta {
  my ($tree, $delta) = @_;
  while (my ($p, $e) = each %$delta) { if (defined $e) { $tree->{$p} = $e } else { delete $tree->{$p} } }
}

# A marker file made now, and the clock waited past it: anything written after has a newer ctime.
sub fresh_marker {
  my ($file) = @_;
  unlink $file;
  open(my $fh, '>', $file) or return 0;
  close $fh;
  my @m = Time::HiRes::lstat($file);
  tick_past("$file.tick", @m ? $m[10] : 0);
  return 1;
}

sub report {
  my ($before, $after, $keys) = @_;
  my ($made, $gone) = differences($before, $after, $keys);
  my @made = @$made;
  my @gone = @$gone;
  my $n = 0;
  my @sent;
  # Deletions deepest first; then creations and changes, parents before children.
  for my $p (sort { $b cmp $a } @gone) {
    my $b = $before->{$p};
    my $t = substr($b, 0, 1);
    put('chg', join(' ', 'D', $t, 0, 0, 0, $t eq 'd' ? '-' : substr($b, 37), -1, length($p)) . "\n" . $p);
    push @sent, $p;
    $n++;
  }
  my %inode;
  for my $r (sort { $a->[1] cmp $b->[1] } @made) {
    my ($op, $p) = @$r;
    my $a = $after->{$p};
    my ($t, $ino, $size, $mtime, undef, $mode) = $a eq 'd' ? ('d', 0, 0, 0, 0, 0) : unpack('a1 Q Q d d L', $a);
    my $base = $op eq 'C' ? '-' : substr($before->{$p}, 37);
    my $target = $t eq 'l' ? (readlink($p) // '') : '';
    $size = 0 if $op eq 'T' || $t ne 'f';
    my $same = -1;
    if ($size > 0 && exists $inode{$ino}) { ($same, $size) = ($inode{$ino}, 0) }
    put('chg', join(' ', $op, $t, $mode, sprintf('%.9f', $mtime), $size, $base, $same, length($p)) . "\n" . $p . $target);
    if ($size > 0) {
      $inode{$ino} = $n;
      put('sum', send_content($p, $size));
    }
    push @sent, $p;
    $n++;
  }
  put('end', $n);
  return \@sent;
}

# After the report: the content of files sparehand asks for, until it says bye (or goes away).
sub answer_wants {
  my ($sent) = @_;
  while (my ($type, $payload) = frame()) {
    last if $type eq 'bye';
    next unless $type eq 'want' && $payload =~ /^(\d+)$/;
    my $i = $1;
    my $p = $i < @$sent ? $sent->[$i] : undef;
    my @st = defined $p ? lstat($p) : ();
    # Not a file any more (a process the command left changed it): said, so that sparehand does not wait for it.
    if (!@st || !-f _) { put('gone', $i); next }
    put('got', $i . ' ' . $st[7]);
    put('sum', send_content($p, $st[7]));
  }
}
