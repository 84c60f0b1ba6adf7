# One `find` of the copy split over the worker's processors (issue 28: on 100,000 files one find costs about a
# fifth of a second, and a warm run makes two): the top two levels in one find, the folders at depth 2 (as find
# itself lists them, so what is pruned stays pruned) spread over the others, each from depth 1 below its starting
# folders. Together they print what one `find .` with the same tests prints, in another order. A folder at depth 2
# that appeared after the listing gets a find of its own. A small tree, or a worker with one processor: one find.
my $find_ways;
# How many finds may walk at once: the worker's processors, at most 4.
sub find_ways {
  return $find_ways if defined $find_ways;
  my $n = 0;
  if (open(my $c, '<', '/proc/cpuinfo')) { while (<$c>) { $n++ if /^processor\s*:/ } close $c }
  if (!$n && open(my $s, '-|', 'sysctl', '-n', 'hw.ncpu')) { my $l = <$s> // ''; close $s; $n = $1 if $l =~ /^(\d+)/ }
  $find_ways = $n < 1 ? 1 : $n > 4 ? 4 : $n;
  return $find_ways;
}

# Starts find with ARGS (after 'find'), its output on a handle: [pid, handle], or undef.
sub find_start {
  my @args = @_;
  my $pid = open(my $fh, '-|');
  return undef unless defined $pid;
  # (Names as the bytes they are: in a UTF-8 locale find matches each name against the rules as characters, slower.)
  if (!$pid) { open(STDERR, '>', '/dev/null'); $ENV{LC_ALL} = 'C'; exec { 'find' } 'find', @args; exit 127 }
  return [$pid, $fh];
}

# The finds of the copy (the current folder) with PRUNE (tests that, true, prune) and TESTS (the rest, with the
# action) split as above: (a list of [pid, handle], the depth-2 folders listed), or () when one cannot start.
sub find_split {
  my ($prune, $tests) = @_;
  my @p = @$prune ? (@$prune, '-prune', '-o') : ();
  my @dirs;
  if (find_ways() > 1) {
    my $l = find_start('.', '-maxdepth', '2', @p, '-type', 'd', '-print0') or return ();
    local $/ = "\0";
    my $fh = $l->[1];
    while (my $d = <$fh>) { chomp $d; push @dirs, $d if ($d =~ tr{/}{}) == 2 }
    close $fh;
    @dirs = () if $? >> 8 > 1 || $? & 127;
  }
  if (@dirs < 2 * find_ways()) { my $one = find_start('.', @p, @$tests) or return (); return ([$one], []) }
  my @groups;
  push @{$groups[$_ % find_ways()]}, $dirs[$_] for 0 .. $#dirs;
  my @finds = (find_start('.', '-maxdepth', '2', @p, @$tests) // return ());
  for my $g (@groups) { push @finds, (find_start(@$g, '-mindepth', '1', @p, @$tests) // return ()) }
  return (\@finds, \@dirs);
}

# What the split finds with PRUNE and TESTS (whose action is -print0) print, or undef when one failed (exit above 1:
# 1 is a folder it could not read). A depth-2 folder the first one printed that was not listed (made meanwhile) is
# walked too.
sub find_split_all {
  my ($prune, $tests) = @_;
  my ($finds, $dirs) = find_split($prune, $tests);
  return undef unless $finds;
  my @p = @$prune ? (@$prune, '-prune', '-o') : ();
  my (@out, $bad);
  my $drain = sub {
    my ($f) = @_;
    local $/ = "\0";
    my $fh = $f->[1];
    my @got;
    while (my $x = <$fh>) { chomp $x; push @got, $x if length $x }
    close $fh;
    $bad = 1 if $? >> 8 > 1 || $? & 127;
    return @got;
  };
  my @first = $drain->($finds->[0]);
  push @out, @first, map { $drain->($_) } @$finds[1 .. $#$finds];
  if (@$dirs) {
    my %listed = map { $_ => 1 } @$dirs;
    for my $d (grep { ($_ =~ tr{/}{}) == 2 && !$listed{$_} && -d $_ && !-l $_ } @first) {
      my $f = find_start($d, '-mindepth', '1', @p, @$tests) or return undef;
      push @out, $drain->($f);
    }
  }
  return $bad ? undef : \@out;
}

# Whether the split finds with TESTS (whose action prints) print anything: 1, 0, or undef when one failed. Stops
# them all at the first byte.
sub find_split_any {
  my ($tests) = @_;
  my ($finds) = find_split([], $tests);
  return undef unless $finds;
  my %open = map { fileno($_->[1]) => $_ } @$finds;
  my ($any, $bad) = (0, 0);
  while (%open && !$any) {
    my $rin = '';
    vec($rin, $_, 1) = 1 for keys %open;
    select(my $rout = $rin, undef, undef, undef) > 0 or next;
    for my $fd (keys %open) {
      next unless vec($rout, $fd, 1);
      my $f = $open{$fd};
      if (sysread($f->[1], my $b, 1)) { $any = 1; last }
      close $f->[1];
      $bad = 1 if $? >> 8 > 0 || $? & 127;
      delete $open{$fd};
    }
  }
  for my $f (values %open) { kill 'TERM', $f->[0]; close $f->[1] }
  return $any ? 1 : $bad ? undef : 0;
}
