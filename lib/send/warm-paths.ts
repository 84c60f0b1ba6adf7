// The kept fingerprint's paths (warm-kept.ts) with what changed since laid over them, read from the kept text only
// where asked: after a one-file edit in a 100,000-file project, a few lookups, not a map of 100,000 entries built,
// compared, hashed and written again (docs/performance.md "The watcher"). Anything that needs the whole (what is
// under a folder) builds it once, and from then on it is a plain map.

/** A stat line as fingerprint-parts.ts statLine writes it. */
const STAT = /^[dlfs]:\d+:\d+:[-\d.e+]+:[-\d.e+]+:\d+$/;

/** Where `key`'s entry starts in `text`, and where its stat line does. */
function entryAt(text: string, key: string): { start: number; value: number } | undefined {
  if (text.startsWith(`${key}\0`)) return { start: 0, value: key.length + 1 };
  const at = text.indexOf(`\0${key}\0`);
  return at < 0 ? undefined : { start: at + 1, value: at + key.length + 2 };
}

/** The kept text: "path\0stat\0" per path. */
export class KeptText {
  private readonly seen = new Map<string, string | undefined | null>();
  constructor(private readonly body: () => string) {}

  /** `key`'s stat line, or undefined; null when the text cannot say by a lookup (a path that looks like a stat line). */
  line(key: string): string | undefined | null {
    if (!this.seen.has(key)) this.seen.set(key, this.find(key));
    return this.seen.get(key);
  }

  /** The whole text. */
  all(): string {
    return this.body();
  }

  private find(key: string): string | undefined | null {
    if (STAT.test(key)) return null;
    const text = this.body();
    const at = entryAt(text, key);
    if (at === undefined) return undefined;
    const end = text.indexOf('\0', at.value);
    const line = text.slice(at.value, end < 0 ? undefined : end);
    return STAT.test(line) ? line : null;
  }

  /** The text without the entries of `keys` (each found as line() finds it). */
  without(keys: Iterable<string>): string {
    const text = this.body();
    const cuts: [number, number][] = [];
    for (const key of keys) {
      const at = entryAt(text, key);
      if (at === undefined) continue;
      cuts.push([at.start, text.indexOf('\0', at.value) + 1]);
    }
    cuts.sort((a, b) => a[0] - b[0]);
    const parts: string[] = [];
    let from = 0;
    for (const [s, e] of cuts) {
      parts.push(text.slice(from, s));
      from = e;
    }
    parts.push(text.slice(from));
    return parts.join('');
  }
}

/** What changed: path → its stat line now, or undefined for one gone. */
export type Delta = Map<string, string | undefined>;

/** The kept paths with changes laid over them. */
export class WarmPaths {
  readonly delta: Delta = new Map();
  private whole: Map<string, string> | undefined;

  constructor(
    private readonly text: KeptText,
    private readonly all: () => Map<string, string>,
  ) {}

  /** The line kept before any change (undefined: none). */
  kept(key: string): string | undefined {
    const l = this.text.line(key);
    return l === null ? this.all().get(key) : l;
  }

  get(key: string): string | undefined {
    if (this.whole) return this.whole.get(key);
    return this.delta.has(key) ? this.delta.get(key) : this.kept(key);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, line: string): void {
    this.delta.set(key, line);
    this.whole?.set(key, line);
  }

  delete(key: string): boolean {
    const was = this.has(key);
    if (was) {
      this.delta.set(key, undefined);
      this.whole?.delete(key);
    }
    return was;
  }

  /** Whether the whole map was built (then `map()` is it, and `delta` all that changed). */
  get built(): boolean {
    return this.whole !== undefined;
  }

  /** Every path, the whole map (built once). */
  map(): Map<string, string> {
    if (!this.whole) {
      const m = this.all();
      for (const [k, v] of this.delta) {
        if (v === undefined) m.delete(k);
        else m.set(k, v);
      }
      this.whole = m;
    }
    return this.whole;
  }

  /** The keys under folder key `dir` (ending in '/'). */
  under(dir: string): string[] {
    return [...this.map().keys()].filter((k) => k !== dir && k.startsWith(dir));
  }

  /** The kept text with the changes made: what warm-kept.ts writes. */
  written(): string {
    if (!this.whole && this.delta.size === 0) return this.text.all();
    if (this.whole || [...this.delta.keys()].some((k) => STAT.test(k))) return textOf(this.map());
    const lines = [this.text.without(this.delta.keys())];
    for (const [k, v] of this.delta) if (v !== undefined) lines.push(`${k}\0${v}\0`);
    return lines.join('');
  }
}

/** The paths as the kept text holds them. */
export function textOf(paths: Map<string, string>): string {
  const lines: string[] = [];
  for (const [p, st] of paths) lines.push(`${p}\0${st}\0`);
  return lines.join('');
}
