# Which slots are held and which tickets wait, without taking any or changing anything: `held <n> <run>`,
# `wait <ticket> <here> <workers> <run>` (and `unsafe <name> <why>` for a file it passed over).
my ($dir, $slots) = @ARGV;
enter($dir, 0) or exit 0;
# No queue yet: no run has taken a slot.
enter('queue', 0) or exit 0;
for my $i (0 .. $slots - 1) {
  my $f = own("slot.$i", O_RDONLY, 0) or next;
  next if flock($f, LOCK_SH | LOCK_NB);
  my $info = <$f> // ''; chomp $info; print "held $i $info\n";
}
opendir(my $d, '.') or exit 0;
for my $o (sort grep { /^\d{15}$/ } readdir $d) {
  my $f = own("queue/$o", O_RDONLY, 0) or next;
  next if flock($f, LOCK_SH | LOCK_NB);
  my $ws = <$f> // ''; my $info = <$f> // ''; chomp($ws, $info);
  my ($h, $w) = split / /, $ws;
  print "wait $o ", $h // 1, ' ', $w // '-', " $info\n";
}
