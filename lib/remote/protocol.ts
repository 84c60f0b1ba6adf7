// The wire protocol of a run's session, in one table: every frame type either side sends (frames.ts is the codec),
// who sends it, the biggest payload it may carry, what it means, and for the small ones how its payload reads.
// sparehand here writes only the types this table has (`frame()` takes a FrameType), the session takes from the
// worker only what the table says the worker sends (unfitFromWorker), and test/remote/frame-table.test.ts holds
// the worker program's Perl to it, both ways.
import { type Platform, parsePlatform } from '../platform/platform.js';
import { printableSentence } from '../safe-text.js';

/** One frame as read (lib/remote/frames.ts is the codec). */
export interface Frame {
  type: string;
  payload: Buffer;
}

/** The biggest payload either side sends (content comes in pieces of 1 MiB). */
export const MAX_PAYLOAD = 8 * 1024 * 1024;

/** Who sends a frame: sparehand (`here`), the worker program (`worker`), or either. */
export type Sender = 'here' | 'worker' | 'both';

export interface FrameSpec {
  from: Sender;
  /** The biggest payload it may carry, in bytes (MAX_PAYLOAD when not given); checked on the frames read here. */
  max?: number;
  /** What it says, in one line. */
  meaning: string;
  /** How the session reads its payload, where that is more than taking the bytes. */
  parse?: (payload: Buffer) => unknown;
}

/** What the worker said when asked for a slot. */
export type Claimed = { slot: number } | { busy: true; slots: number } | { refused: string } | { lost: true };

/** What the worker said of the copy after the claim, when asked (job.warm): untouched since the last run, and its generation. */
export interface CopyState {
  same: boolean;
  gen: string;
}

/** The command's exit status, and how long the dependencies took before it (`ran STATUS [START:END]`). */
export interface Ran {
  status: number;
  depsSeconds?: number;
}

/** A piece of a file's content: sparehand sends 1 MiB pieces, the worker program 64 KiB ones. */
const PIECE = 1 << 20;
/** The command's output is read on the worker 64 KiB at a time (group.pl run_group), each read one frame. */
const OUTPUT_READ = 64 * 1024;

export const FRAMES = {
  // sparehand → the worker program.
  job: { from: 'here', meaning: 'the job (NUL-separated names and values: the command, the folder, the forwarded variables…), first on the input' },
  go: { from: 'here', max: 8, meaning: "the project is on the worker: sparehand's own changes follow (`unsent`: nothing else was sent since the claim)" },
  del: { from: 'here', meaning: "sparehand's own change to the copy: delete this path" },
  put: { from: 'here', meaning: "sparehand's own change to the copy: `MODE MTIME SIZE\\nPATH`, its content in `dat` frames after it" },
  start: { from: 'here', max: 0, meaning: "the end of sparehand's own changes: run the command" },
  sig: { from: 'here', max: 8, meaning: "a signal sparehand received, for the command's process group (INT, TERM, HUP, QUIT)" },
  want: { from: 'here', max: 16, meaning: "send the content of the report's change number N (answered by `got` or `gone`)" },
  results: { from: 'here', max: 0, meaning: 'terminal mode: pass on what the terminal session left on the worker' },
  bye: { from: 'here', max: 0, meaning: 'nothing more is wanted: the worker lets the slot go' },
  dat: { from: 'both', max: PIECE, meaning: "a piece of a file's content (sparehand's own change, or the report's)" },

  // The worker program → sparehand.
  claim: {
    from: 'worker',
    max: 32,
    meaning: 'the slot it got, or `busy SLOTS`',
    parse: (p: Buffer): Claimed => {
      const text = p.toString();
      const [first, ...more] = text.split(' ');
      if (/^\d+$/.test(first ?? '')) return { slot: Number(first) };
      if (first === 'busy') return { busy: true, slots: Number(more[0]) || 0 };
      return { refused: printableSentence(text) };
    },
  },
  copy: {
    from: 'worker',
    max: 80,
    meaning: 'whether the copy is untouched since the last run (`same GEN` | `changed GEN`), when the job asked',
    parse: (p: Buffer): CopyState | undefined => {
      const m = /^(same|changed) ([0-9a-f]{0,64})$/.exec(p.toString('latin1'));
      return m ? { same: m[1] === 'same', gen: m[2] as string } : undefined;
    },
  },
  root: { from: 'worker', meaning: "the copy's absolute folder, as the command sees it (and as the login folder names it)" },
  ready: { from: 'worker', meaning: 'terminal mode: the job file the terminal session reads' },
  phase: { from: 'worker', max: 16, meaning: 'what the worker does now: `deps` (installing dependencies), `run` (the command)' },
  depfail: {
    from: 'worker',
    max: 16 * 1024,
    meaning: 'a dependency install failed: `HASH\\nFIRST LINES` (a `refused` follows)',
    parse: (p: Buffer): { hash: string; said: string } | undefined => {
      const [hash = '', said = ''] = p.toString().split('\n');
      return /^[0-9a-f]{1,64}$/.test(hash) ? { hash, said: said.slice(0, 1000) } : undefined;
    },
  },
  refused: { from: 'worker', meaning: 'the worker cannot run the command (why); nothing ran' },
  anc: { from: 'worker', max: 16, meaning: "whether the copy is the one this machine's ancestor describes (`same` | `lost`)" },
  plat: {
    from: 'worker',
    max: 256,
    meaning: "the worker's platform: `OS ARCH [LIBC]` (platform.pl platform_line)",
    parse: (p: Buffer): Platform | undefined => (p.length <= 100 ? parsePlatform(p.toString('latin1')) : undefined),
  },
  out: { from: 'worker', max: OUTPUT_READ, meaning: "a piece of the command's stdout" },
  err: { from: 'worker', max: OUTPUT_READ, meaning: "a piece of the command's stderr" },
  ran: {
    from: 'worker',
    max: 64,
    meaning: 'the command ended: `STATUS [DEPS_START:DEPS_END]`',
    parse: (p: Buffer): Ran | undefined => {
      const m = /^(\d{1,3}) ?(?:(\d+(?:\.\d+)?):(\d+(?:\.\d+)?))?$/.exec(p.toString());
      if (!m) return undefined;
      const ran: Ran = { status: Number(m[1]) };
      if (m[2] !== undefined && m[3] !== undefined && Number(m[3]) >= Number(m[2])) ran.depsSeconds = Number(m[3]) - Number(m[2]);
      return ran;
    },
  },
  chg: { from: 'worker', meaning: 'the report: one change the command made (report-reader.ts reads and bounds its fields)' },
  hole: { from: 'worker', max: 32, meaning: "the report: N zero bytes of a file's content" },
  sum: { from: 'worker', max: 32, meaning: 'the report: the md5 of the content just sent, or `short` (the file shrank meanwhile)' },
  end: { from: 'worker', max: 20, meaning: 'the report ends: the number of changes it had' },
  got: { from: 'worker', max: 40, meaning: 'the content asked for (`want`) follows: `INDEX SIZE`' },
  gone: { from: 'worker', max: 16, meaning: 'the file asked for (`want`) is not there any more: nothing comes for it' },
  forged: { from: 'worker', max: 1024, meaning: 'terminal mode: what the terminal session left on the worker is not whole or not its own' },
  done: { from: 'worker', max: 0, meaning: 'terminal mode: all the terminal session left has been passed on' },
} satisfies Record<string, FrameSpec>;

/** Every frame type of the protocol. */
export type FrameType = keyof typeof FRAMES;

/** The table's entry for a type read off the wire (own keys only: `constructor` is no frame). */
export function frameSpec(type: string): FrameSpec | undefined {
  return Object.hasOwn(FRAMES, type) ? (FRAMES as Record<string, FrameSpec>)[type] : undefined;
}

/** Why a frame read from the worker cannot be taken (undefined: it can): a type it does not send, or too big for its type. */
export function unfitFromWorker(f: Frame): string | undefined {
  const spec = frameSpec(f.type);
  if (spec === undefined || spec.from === 'here') return `a frame the worker should not send (${f.type.slice(0, 16)})`;
  const max = spec.max ?? MAX_PAYLOAD;
  if (f.payload.length > max) return `a ${f.type} frame of ${f.payload.length} bytes (at most ${max})`;
  return undefined;
}
