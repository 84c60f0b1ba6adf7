// Slots are counted on the worker itself, so several machines sharing one worker never use one slot at once: a
// run holds a lock (flock) on `<dir>/.slots.d/<n>.lock` for the life of its ssh session (worker/claim.pl), and
// a dropped connection frees it at once. Perl's flock works the same on Linux and macOS. The number of slots is
// the worker's own: `<dir>/.slots`, written by `worker add --slots` or, when missing, by the first run (its
// config's value). Here: asking who holds what (`sparehand status`, `worker check`).

/**
 * perl -e SLOT_STATUS DIR [SLOTS]: the worker's slots as `slots MAX` then `free N` or
 * `busy N <record> <started, seconds since the epoch>[ <what it does before its command>]` per slot, and
 * `now <seconds>`. With SLOTS, writes the worker's count first (`worker add --slots`).
 */
export const SLOT_STATUS = String.raw`
use strict;
use warnings;
use Fcntl qw(:flock);
my ($dir, $set) = @ARGV;
mkdir $dir;
mkdir "$dir/.slots.d";
if (defined $set && $set =~ /^\d+$/ && $set > 0 && open(my $fh, '>', "$dir/.slots.$$")) {
  print $fh "$set\n";
  close $fh;
  rename("$dir/.slots.$$", "$dir/.slots");
}
my $max = 0;
if (open(my $fh, '<', "$dir/.slots")) { my $l = <$fh>; $max = $1 if defined $l && $l =~ /^(\d+)/; close $fh }
print "slots $max\n";
for my $n (0 .. $max - 1) {
  my $free = 1;
  if (open(my $fh, '>>', "$dir/.slots.d/$n.lock")) {
    $free = flock($fh, LOCK_EX | LOCK_NB) ? 1 : 0;
    close $fh;
  }
  if ($free) { print "free $n\n"; next }
  my $rec = '';
  if (open(my $run, '<', "$dir/.slots.d/$n.run")) { $rec = <$run> // ''; chomp $rec; close $run }
  print "busy $n\t$rec\n";
}
print "now ", time(), "\n";
`;

export interface SlotRun {
  slot: number;
  machine: string;
  user: string;
  project: string;
  command: string;
  /** Seconds since the epoch, on the worker's clock. */
  started: number;
  /** What the run does before its command, while it does (`installing dependencies (npm ci)`); absent once it runs. */
  doing?: string;
}

/** Who holds a slot, as a run writes it: machine, user@host, project, command (tabs and newlines made spaces). */
export function runRecord(r: Omit<SlotRun, 'slot' | 'started'>): string {
  const clean = (s: string) => s.replace(/[\t\n\r]+/g, ' ');
  return [r.machine, r.user, r.project, r.command.length > 200 ? `${r.command.slice(0, 199)}…` : r.command].map(clean).join('\t');
}

/** SLOT_STATUS's answer: the slot count, busy slots with who holds them, and the worker's clock. */
export function parseSlotStatus(text: string): { slots: number; busy: SlotRun[]; now: number } | undefined {
  const slots = /^slots (\d+)$/m.exec(text);
  if (!slots) return undefined;
  const busy: SlotRun[] = [];
  for (const line of text.split('\n')) {
    const m = /^busy (\d+)\t(.*)$/.exec(line);
    if (!m) continue;
    const [machine = '?', user = '?', project = '?', command = '?', started = '0', doing = ''] = (m[2] as string).split('\t');
    busy.push({ slot: Number(m[1]), machine, user, project, command, started: Number(started), ...(doing ? { doing } : {}) });
  }
  return { slots: Number(slots[1]), busy, now: Number(/^now (\d+)$/m.exec(text)?.[1] ?? 0) };
}
