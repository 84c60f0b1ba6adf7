// Reading what the worker sends after the command (tree-watch.ts): the command's own output is passed
// on untouched up to the results block; the block's changes are parsed and their content put in a staging folder.
import { createHash } from 'node:crypto';
import { closeSync, linkSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

export type ChangeOp = 'C' | 'M' | 'T' | 'D';
export type EntryType = 'f' | 'l' | 'd';

export interface Change {
  /** C created, M content changed, T only mtime or mode changed, D deleted. */
  op: ChangeOp;
  type: EntryType;
  mode: number;
  /** Seconds since the epoch, as on the worker. */
  mtime: number;
  size: number;
  /** md5 of the content (a link's target) before the command; undefined for a created path. */
  base: string | undefined;
  /** md5 of the content (a link's target) after the command; undefined for a deletion or a folder. */
  hash: string | undefined;
  path: string;
  /** A link's target. */
  target: string;
  /** The file holding the content here, for files created or changed. */
  staged?: string;
  /** Why this change cannot be applied (a name sparehand will not write, content that changed while sent). */
  problem?: string;
}

export type Results =
  | { kind: 'ran'; status: number; changes: Change[]; /** Seconds the worker spent installing dependencies first. */ depsSeconds?: number }
  | { kind: 'refused'; reason: string };

const EMPTY_MD5 = 'd41d8cd98f00b204e9800998ecf8427e';

/** Why sparehand will not write this relative path from the worker, or undefined when it is fine. */
export function unsafePath(path: string): string | undefined {
  if (path === '' || path.startsWith('/')) return 'not a relative path';
  if (path.split('/').some((part) => part === '' || part === '.' || part === '..')) return 'a path with an empty, . or .. part';
  if (path === '.sparehand' || path.startsWith('.sparehand/')) return "sparehand's own folder";
  return undefined;
}

/**
 * Consumes `stream` (ssh's stdout) into `parser`: bytes before the results block go to `output` as they come.
 * Stops reading once the block is whole (whatever follows is not read), when the stream ends first (connection
 * lost), or when `give up` says so after a chunk.
 */
export async function pumpResults(stream: Readable, parser: ResultsParser, output?: Writable, giveUp: () => boolean = () => false): Promise<void> {
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const out = parser.push(chunk);
      if (out.length > 0 && output && !output.write(out)) await new Promise((r) => output.once('drain', r));
      if (parser.done || giveUp()) break;
    }
  } finally {
    parser.close();
  }
}

type State = 'output' | 'header' | 'record' | 'names' | 'content' | 'footer' | 'done';

/** A push parser: `push()` returns the bytes that belong to the command's output. */
export class ResultsParser {
  private state: State = 'output';
  private pending: Buffer = Buffer.alloc(0);
  private readonly marker: Buffer;
  private parsed: Results | undefined;
  private changes: Change[] = [];
  private current: (Change & { pathLength: number; targetLength: number; same: number }) | undefined;
  private fd: number | undefined;
  private left = 0;
  private md5: ReturnType<typeof createHash> | undefined;
  private dir: string | undefined;
  /** When the block began (performance.now()): the command had finished. */
  seenAt: number | undefined;

  constructor(
    nonce: string,
    private readonly stagingDir: () => string,
  ) {
    this.marker = Buffer.from(`\0sparehand-results ${nonce} `);
  }

  push(chunk: Buffer): Buffer {
    if (this.state === 'done') return chunk;
    const data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    if (this.state === 'output') {
      const at = data.indexOf(this.marker);
      if (at < 0) {
        // Hold back a tail that could be the start of the marker.
        const keep = this.partialMarkerAt(data);
        this.pending = data.subarray(keep);
        return data.subarray(0, keep);
      }
      const before = data.subarray(0, at);
      this.seenAt = performance.now();
      this.state = 'header';
      this.parse(data.subarray(at + this.marker.length));
      return (this.state as State) === 'done' ? Buffer.concat([before, this.afterBlock()]) : before;
    }
    this.parse(data);
    return (this.state as State) === 'done' ? this.afterBlock() : Buffer.alloc(0);
  }

  /** Bytes after the block (a process the command left behind, still writing): output again. */
  private afterBlock(): Buffer {
    const rest = this.pending;
    this.pending = Buffer.alloc(0);
    return rest;
  }

  /** The results block has begun: the command has finished. */
  get seen(): boolean {
    return this.state !== 'output';
  }

  get done(): boolean {
    return this.state === 'done';
  }

  /** The stream ended: whatever content file is open is closed. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** The whole block, or undefined when it did not come whole. */
  get results(): Results | undefined {
    return this.state === 'done' ? this.parsed : undefined;
  }

  /** Where in `data` a suffix starts that is a prefix of the marker (data.length when none). */
  private partialMarkerAt(data: Buffer): number {
    const from = Math.max(0, data.length - this.marker.length + 1);
    for (let i = data.indexOf(0, from); i >= 0 && i < data.length; i = data.indexOf(0, i + 1)) {
      if (this.marker.subarray(0, data.length - i).equals(data.subarray(i))) return i;
    }
    return data.length;
  }

  private parse(input: Buffer): void {
    let data = input;
    while (data.length > 0 && this.state !== 'done') {
      if (this.state === 'content') {
        const take = Math.min(this.left, data.length);
        const piece = data.subarray(0, take);
        if (this.fd !== undefined) writeSync(this.fd, piece);
        this.md5?.update(piece);
        this.left -= take;
        data = data.subarray(take);
        if (this.left === 0) {
          this.close();
          this.state = 'footer';
        }
        continue;
      }
      if (this.state === 'names') {
        const c = this.current as NonNullable<typeof this.current>;
        const need = c.pathLength + c.targetLength;
        if (data.length < need) break;
        this.names(data.subarray(0, c.pathLength), data.subarray(c.pathLength, need));
        data = data.subarray(need);
        continue;
      }
      const nl = data.indexOf(10);
      if (nl < 0) break;
      const line = data.subarray(0, nl).toString('latin1');
      data = data.subarray(nl + 1);
      this.line(line);
    }
    this.pending = Buffer.from(data);
  }

  private line(line: string): void {
    if (this.state === 'header') {
      const [kind, ...rest] = line.split(' ');
      if (kind === 'refused') {
        this.parsed = { kind: 'refused', reason: Buffer.from(rest.join(' '), 'latin1').toString('utf8') };
        this.state = 'done';
      } else if (kind === 'ran' && /^\d+$/.test(rest[0] ?? '')) {
        this.parsed = { kind: 'ran', status: Number(rest[0]), changes: this.changes };
        // `deps=START:END`: wall-clock seconds (a comma in some locales).
        const [start, end] = (/^deps=(.+)$/.exec(rest[1] ?? '')?.[1] ?? '').replace(/,/g, '.').split(':').map(Number);
        if (start !== undefined && end !== undefined && end >= start) this.parsed.depsSeconds = end - start;
        this.state = 'record';
      } else this.state = 'done';
      return;
    }
    if (this.state === 'footer') {
      const c = this.changes.at(-1) as Change;
      const got = this.md5?.digest('hex');
      if (line !== got) c.problem = 'it changed on the worker while it was being sent';
      c.hash = got;
      this.state = 'record';
      return;
    }
    // state 'record'
    const f = line.split(' ');
    if (f[0] === 'end') {
      if (Number(f[1]) !== this.changes.length) this.parsed = undefined;
      this.state = 'done';
      return;
    }
    const [op, type, mode, mtime, size, base, same, pathLength, targetLength] = f;
    if (f.length !== 9 || !'CMTD'.includes(op as string) || !'fld'.includes(type as string)) {
      this.parsed = undefined;
      this.state = 'done';
      return;
    }
    this.current = {
      op: op as ChangeOp,
      type: type as EntryType,
      mode: Number(mode),
      mtime: Number(mtime),
      size: Number(size),
      base: base === '-' ? undefined : base,
      hash: undefined,
      path: '',
      target: '',
      same: Number(same),
      pathLength: Number(pathLength),
      targetLength: Number(targetLength),
    };
    this.state = 'names';
  }

  private names(pathBytes: Buffer, targetBytes: Buffer): void {
    const { pathLength: _p, targetLength: _t, same, ...c } = this.current as NonNullable<typeof this.current>;
    const change: Change = c;
    change.path = pathBytes.toString('utf8');
    change.target = targetBytes.toString('utf8');
    if (!Buffer.from(change.path).equals(pathBytes) || !Buffer.from(change.target).equals(targetBytes)) {
      change.problem = 'its name is not UTF-8';
    } else change.problem = unsafePath(change.path);
    const index = this.changes.length;
    this.changes.push(change);
    this.state = 'record';
    if (change.type === 'l') change.hash = createHash('md5').update(targetBytes).digest('hex');
    if (change.type !== 'f' || change.op === 'D') return;
    if (change.op === 'T') {
      change.hash = change.base;
      return;
    }
    change.staged = join(this.staging(), String(index));
    const twin = same >= 0 ? this.changes[same] : undefined;
    if (twin?.staged !== undefined) {
      // A hard link to a file sent earlier in this block: same inode here too.
      linkSync(twin.staged, change.staged);
      change.hash = twin.hash;
      change.problem ??= twin.problem;
    } else if (change.size === 0) {
      writeFileSync(change.staged, '', { mode: 0o600 });
      change.hash = EMPTY_MD5;
    } else {
      this.fd = openSync(change.staged, 'wx', 0o600);
      this.md5 = createHash('md5');
      this.left = change.size;
      this.state = 'content';
    }
  }

  private staging(): string {
    this.dir ??= this.stagingDir();
    return this.dir;
  }
}
