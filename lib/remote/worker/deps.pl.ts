// The worker program: dependencies, installed with the project's own tool from its lock or requirements file
// (lib/run/deps.ts decides what), again only when that file changed — or when the installed folder no longer
// matches what the install left (a package deleted there): its names are compared with a fingerprint taken
// right after the install, so a broken node_modules or .venv on the worker is repaired, not trusted.
export const DEPS_PL = String.raw`
our ($deps_start, $deps_end);

# The names under a dependency folder, to a depth: what an install leaves and a run does not change (caches and
# compiled bytecode that tools write there at run time are left out).
sub fingerprint {
  my ($root, $depth) = @_;
  return 'none' unless -d $root && !-l $root;
  my $md5 = Digest::MD5->new;
  my @todo = (['', 0]);
  while (@todo) {
    my ($rel, $d) = @{pop @todo};
    opendir(my $dh, length $rel ? "$root/$rel" : $root) or next;
    my @names = sort grep { $_ ne '.' && $_ ne '..' && $_ ne '__pycache__' && !/\.py[co]$/ && !($d == 0 && /^\.(?!bin$|pnpm$)/) } readdir $dh;
    closedir $dh;
    for my $n (@names) {
      my $p = length $rel ? "$rel/$n" : $n;
      $md5->add("$p\0");
      push @todo, [$p, $d + 1] if $d + 1 < $depth && -d "$root/$p" && !-l "$root/$p";
    }
  }
  return $md5->hexdigest;
}

sub install_deps {
  my ($top) = @_;
  for my $entry (@{$many{dep}}) {
    my ($ddir, $stamp, $hash, $folder_spec, $note, $install) = split /\t/, $entry, 6;
    next unless defined $install;
    my ($depdir, $depth) = split /:/, $folder_spec;
    my $where = $ddir eq '.' ? '' : " in $ddir";
    my $sfile = "../$folder.deps.$stamp";
    my ($was, $fp) = ('', '');
    if (open(my $fh, '<', $sfile)) { my $l = <$fh> // ''; close $fh; chomp $l; ($was, $fp) = split / /, $l }
    $fp //= '';
    my $target = !length($depdir // '') ? '' : $ddir eq '.' ? $depdir : "$ddir/$depdir";
    if ($was eq $hash) {
      next if !length $target || fingerprint($target, $depth || 2) eq $fp;
      print STDERR "sparehand: the dependencies installed on the worker$where changed since their install ($target); installing them again\n";
    }
    put('phase', 'deps');
    my $why = length($note // '') ? " ($note)" : '';
    print STDERR "sparehand: installing dependencies on the worker$where$why: $install\n";
    $deps_start //= Time::HiRes::time();
    -d $ddir or refuse("cannot enter $ddir on the worker");
    my $st = run_group($install, $ddir, 'stderr');
    exit 0 unless defined $st;
    # Ctrl-C (or QUIT) at the terminal: stopped, not failed.
    exit $st if $mode eq 'tty' && ($st == 130 || $st == 131);
    refuse("installing dependencies failed on the worker (exit $st): $install") if $st != 0;
    my $now = length $target ? fingerprint($target, $depth || 2) : '';
    if (open(my $fh, '>', "$sfile.$$")) { print $fh "$hash $now\n"; close $fh; rename("$sfile.$$", $sfile) }
    $deps_end = Time::HiRes::time();
  }
}
`;
