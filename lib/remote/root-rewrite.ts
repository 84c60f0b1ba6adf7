// The worker's copy of the project, as the command names it in its output (`/home/w/.sparehand/work/<key>/0`,
// `file:///…/0/src/a.test.js`), shown as the project's root here, so that a path in a failure can be opened. Only
// those exact strings change, and only where they end a path (`…/0` is not `…/01`); every other byte passes as it
// came (binary output included). A chunk that ends with what may be the start of one is held back until the next
// chunk (or the end, or `flush()`) decides. The strings come from the worker (its `root` frame), but they are
// only ever what is looked for: what replaces them is always this machine's root.
import { Transform } from 'node:stream';
import { pathToFileURL } from 'node:url';

interface Pattern {
  from: Buffer;
  to: Buffer;
  /** The byte before it must not continue a path (a bare path; `file://` forms start a URL of their own). */
  bare: boolean;
}

/** Bytes that continue a name: after the root they make it another path (`/w/01`, `/w/0.bak`), before it a longer one. */
function continuesName(b: number): boolean {
  return (
    (b >= 0x30 && b <= 0x39) ||
    (b >= 0x41 && b <= 0x5a) ||
    (b >= 0x61 && b <= 0x7a) ||
    b >= 0x80 ||
    b === 0x2e ||
    b === 0x5f ||
    b === 0x2d ||
    b === 0x7e ||
    b === 0x2b
  );
}

/** How many bytes passed on are kept to look behind a root (an escape sequence before it). */
const TAIL = 32;

/**
 * Whether a path can start at `at`: the byte before does not continue a name or a path (`/x/w/0` is another path),
 * or it is the letter that ends a terminal escape sequence (`ESC[31m/w/0`).
 */
function startsPath(data: Buffer, at: number): boolean {
  if (at === 0) return true;
  const b = data[at - 1] as number;
  if (!continuesName(b) && b !== 0x2f) return true;
  if (!((b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a))) return false;
  let i = at - 2;
  while (i >= 0 && (data[i] as number) >= 0x30 && (data[i] as number) <= 0x3f) i--;
  return i >= 1 && data[i] === 0x5b && data[i - 1] === 0x1b;
}

/** A path as a `file://` URL names it (spaces and the like percent-encoded, as Node and browsers write them). */
function fileUrl(path: string): string {
  return pathToFileURL(path).href.replace(/\/$/, '');
}

/** The patterns for worker roots `from`, each replaced by `to` (the root here). */
function patterns(from: readonly string[], to: string): Pattern[] {
  const out: Pattern[] = [];
  const add = (f: string, t: string, bare: boolean) => {
    if (!out.some((p) => p.from.toString() === f)) out.push({ from: Buffer.from(f), to: Buffer.from(t), bare });
  };
  for (const root of from) {
    add(`file://${root}`, fileUrl(to), false);
    add(fileUrl(root), fileUrl(to), false);
    add(root, to, true);
  }
  // At one place the longest first: a `file://` form before the bare root inside it.
  return out.sort((a, b) => b.from.length - a.from.length);
}

/** The push side of the rewrite: bytes in, bytes out; nothing is changed until `setRoots`. */
export class RootRewriter {
  private pats: Pattern[] = [];
  private held: Buffer = Buffer.alloc(0);
  /** The last bytes passed on (before the held ones): what comes before a root decides whether it starts a path. */
  private tail: Buffer = Buffer.alloc(0);

  constructor(private readonly here: string) {}

  /** The worker's roots (absolute, checked by the caller: rootsOf); once known, they are rewritten from then on. */
  setRoots(roots: readonly string[]): void {
    this.pats = roots.length ? patterns(roots, this.here) : [];
  }

  /** What can be passed on after `chunk` (a possible match at its end is held back). */
  push(chunk: Buffer): Buffer {
    return this.run(this.held.length ? Buffer.concat([this.held, chunk]) : chunk, false);
  }

  /** Everything held back, at the end of the stream (or when the stream has been quiet long enough). */
  flush(): Buffer {
    return this.run(this.held, true);
  }

  private run(input: Buffer, ending: boolean): Buffer {
    this.held = Buffer.alloc(0);
    if (this.pats.length === 0 || input.length === 0) return this.pass(input);
    // What was passed on last, then the new bytes: only the new ones are looked at and passed on.
    const data = Buffer.concat([this.tail, input]);
    const out: Buffer[] = [];
    let from = this.tail.length;
    let at = from;
    let hold: number | undefined;
    // Whole matches first (found by the native search), the earliest of any pattern, longest first at one place.
    const found = this.pats.map(() => -1);
    for (;;) {
      let best: { i: number; p: Pattern } | undefined;
      for (const [k, p] of this.pats.entries()) {
        if ((found[k] as number) < at) found[k] = data.indexOf(p.from, at);
        const i = found[k] as number;
        if (i >= 0 && (best === undefined || i < best.i)) best = { i, p };
      }
      if (best === undefined) break;
      const { i, p } = best;
      const next = i + p.from.length < data.length ? (data[i + p.from.length] as number) : undefined;
      if (p.bare && !startsPath(data, i)) {
        at = i + 1;
        continue;
      }
      if (next === undefined && !ending) {
        hold = i;
        break;
      }
      if (next !== undefined && next !== 0x2f && continuesName(next)) {
        at = i + 1;
        continue;
      }
      out.push(data.subarray(from, i), p.to);
      at = from = i + p.from.length;
    }
    // Then the end: the earliest place from which what is left may still become a match.
    if (hold === undefined && !ending) hold = this.partialAt(data, from);
    const end = hold ?? data.length;
    if (hold !== undefined) this.held = Buffer.from(data.subarray(hold));
    out.push(data.subarray(from, end));
    this.tail = Buffer.from(data.subarray(Math.max(0, end - TAIL), end));
    return Buffer.concat(out);
  }

  /** The first offset (from `start`) where the bytes to the end are the beginning of a pattern, if any. */
  private partialAt(data: Buffer, start: number): number | undefined {
    const longest = Math.max(...this.pats.map((p) => p.from.length));
    for (let k = Math.max(start, data.length - longest + 1); k < data.length; k++) {
      for (const p of this.pats) {
        const n = data.length - k;
        if (n < p.from.length && data.compare(p.from, 0, n, k, data.length) === 0 && (!p.bare || startsPath(data, k))) return k;
      }
    }
    return undefined;
  }

  private pass(data: Buffer): Buffer {
    this.tail = Buffer.from(data.length >= TAIL ? data.subarray(-TAIL) : Buffer.concat([this.tail, data]).subarray(-TAIL));
    return data;
  }
}

/**
 * The roots a worker's `root` frame names, when it is one sparehand's program sends: up to two absolute paths
 * (the folder as the program found it, and as its login folder names it), each ending in the copy's own
 * `/<key>/<folder>`, printable, without `.`/`..` parts. A line that is anything else names none.
 */
export function rootsOf(payload: Buffer, key: string, folder: number): string[] {
  if (payload.length > 8200) return [];
  const text = payload.toString('utf8');
  const lines = text.split('\n');
  if (lines.length > 2 || !Buffer.from(text).equals(payload)) return [];
  const tail = `/${key}/${folder}`;
  const ok = (p: string) =>
    p.length > tail.length &&
    p.length <= 4096 &&
    p.startsWith('/') &&
    p.endsWith(tail) &&
    !/[\u0000-\u001f\u007f-\u009f]/.test(p) &&
    !p
      .split('/')
      .slice(1)
      .some((part) => part === '' || part === '.' || part === '..');
  return [...new Set(lines.filter(ok))];
}

/** The rewrite as a stream (a terminal's output, piped): held bytes go out after `idleMs` of quiet, and at the end. */
export function rootRewriteStream(rw: RootRewriter, idleMs = 50): Transform {
  let timer: NodeJS.Timeout | undefined;
  const t: Transform = new Transform({
    transform(chunk: Buffer, _enc, done) {
      clearTimeout(timer);
      const out = rw.push(chunk);
      timer = setTimeout(() => {
        const rest = rw.flush();
        if (rest.length) t.push(rest);
      }, idleMs);
      done(null, out.length ? out : undefined);
    },
    flush(done) {
      clearTimeout(timer);
      const rest = rw.flush();
      done(null, rest.length ? rest : undefined);
    },
  });
  return t;
}

/** One of the command's outputs here (sparehand's stdout or stderr), written through a rewrite. */
export interface RewrittenOutput {
  /** Writes what can be passed on; resolves when the stream can take more. */
  write(chunk: Buffer): Promise<void>;
  setRoots(roots: readonly string[]): void;
  /** Passes on what is held back (the command ended). */
  flush(): void;
}

/**
 * `stream` behind a rewrite of the worker's roots to `here`. Bytes held back go out after `idleMs` with nothing
 * more (a line that ends in the middle of what could be a root is not kept from a live view for long).
 */
export function rewrittenOutput(stream: NodeJS.WritableStream, here: string, idleMs = 200): RewrittenOutput {
  const rw = new RootRewriter(here);
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    const rest = rw.flush();
    if (rest.length) stream.write(rest);
  };
  return {
    setRoots: (roots) => rw.setRoots(roots),
    flush,
    write: async (chunk) => {
      clearTimeout(timer);
      const out = rw.push(chunk);
      timer = setTimeout(flush, idleMs);
      timer.unref();
      if (out.length && !stream.write(out)) await new Promise((r) => stream.once('drain', r));
    },
  };
}
