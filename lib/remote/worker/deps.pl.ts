// The worker program: dependencies, installed with the project's own tool from its lock or requirements file
// (lib/run/deps.ts decides what), again only when that file changed — or when the installed folder no longer
// matches what the install left (a package deleted there): its names are compared with a fingerprint taken
// right after the install, so a broken node_modules or .venv on the worker is repaired, not trusted. A failed install
// says what it was made from and the installer's first lines (`depfail`) before the refusal.
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

# The first three lines of an installer's output that say something (of those that name an error, when some do), colour codes and carriage-return redraws
# left out, as one line.
sub first_lines {
  my ($text) = @_;
  $text =~ s/\e\[[0-9;?]*[A-Za-z]//g;
  # (A line that is only a tool's prefix, as npm's empty "npm error", says nothing.)
  my @lines = grep { /\S/ && !/^\s*\S*\s*(err(or)?|ERR!)\s*:?\s*$/i } map { my @p = split /\r/, $_; $p[-1] // '' } split /\n/, $text;
  s/[^\x20-\x7e]/?/g for @lines;
  s/^\s+|\s+$//g for @lines;
  # The lines that say what went wrong, when some do (npm prints the script it ran first, pip its progress).
  my @errors = grep { /\b(err(or)?|fail(ed|ure)?|fatal|cannot|could not|not found|no matching)\b/i } @lines;
  @lines = @errors if @errors;
  return join(' / ', map { length > 200 ? substr($_, 0, 200) . '...' : $_ } @lines[0 .. ($#lines < 2 ? $#lines : 2)]);
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
    # "sparehand status" shows the install, not the command, while it runs (the record is put back after).
    slot_record("installing dependencies" . ($ddir eq '.' ? '' : " in $ddir") . " ($install)");
    my $why = length($note // '') ? " ($note)" : '';
    print STDERR "sparehand: installing dependencies on the worker$where$why: $install\n";
    $deps_start //= Time::HiRes::time();
    -d $ddir or refuse("cannot enter $ddir on the worker");
    my $st = run_group($install, $ddir, 'install');
    exit 0 unless defined $st;
    # Ctrl-C (or QUIT) at the terminal: stopped, not failed.
    exit $st if $mode eq 'tty' && ($st == 130 || $st == 131);
    if ($st != 0) {
      # What it was made from (the hash) and what the installer said first: sparehand remembers both, and does not
      # try the same install again (lib/run/failed-installs.ts).
      my $said = first_lines($install_head);
      put('depfail', "$hash\n$said");
      refuse("installing dependencies failed on the worker (exit $st): $install" . (length $said ? "; it said: $said" : ''));
    }
    my $now = length $target ? fingerprint($target, $depth || 2) : '';
    if (open(my $fh, '>', "$sfile.$$")) { print $fh "$hash $now\n"; close $fh; rename("$sfile.$$", $sfile) }
    $deps_end = Time::HiRes::time();
  }
  slot_record('') if defined $deps_start;
}
`;
