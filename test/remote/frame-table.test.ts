// The protocol's table (lib/remote/protocol.ts) against both languages that speak it: the frame types the worker
// program's Perl writes and reads, found in the program's text as the run sends it (the exported constants, not
// the files they are made from), and the ones sparehand's own TypeScript writes, found in lib/'s syntax trees.
// Every site is found or the test fails: a frame written or read in a way this test does not know is an error
// here, so that a change of idiom makes it fail rather than pass with nothing found.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { MAX_PAYLOAD } from '../../lib/remote/frames.js';
import { FRAMES, type FrameSpec, type FrameType, frameSpec, unfitFromWorker } from '../../lib/remote/protocol.js';
import { PROGRAM } from '../../lib/remote/worker/program.js';
import { WATCHER_PL } from '../../lib/watch/watcher-pl.js';

const LIB = join(import.meta.dirname, '..', '..', 'lib');
const TABLE = FRAMES as Record<string, FrameSpec>;
const TYPES = Object.keys(TABLE) as FrameType[];
const sentBy = (side: 'here' | 'worker') => TYPES.filter((t) => TABLE[t]?.from === side || TABLE[t]?.from === 'both').sort();

/** The Perl the worker runs: the program, the programs it carries packed in hex (its copy's watcher), and the project's watcher. */
function perlTexts(): string[] {
  const packed = [...PROGRAM.matchAll(/pack\('H\*', '([0-9a-f]+)'\)/g)].map((m) => Buffer.from(m[1] as string, 'hex').toString());
  return [PROGRAM, ...packed, WATCHER_PL];
}

/** The types the Perl writes: every put() call (the one sub that writes a frame), and frames written by hand. */
function perlWrites(perl: string) {
  const types = new Set<string>();
  const computed: string[] = [];
  for (const m of perl.matchAll(/\bput\(\s*([^,)]*)/g)) {
    const arg = (m[1] as string).trim();
    const literal = /^'([a-z]{1,16})'$/.exec(arg);
    if (literal) types.add(literal[1] as string);
    else computed.push(arg);
  }
  // put($o->[1], …): the command's output pipes, each with the type its pieces go out as.
  if (computed.includes('$o->[1]')) for (const m of perl.matchAll(/\[\$\w+, '([a-z]{1,16})'\]/g)) types.add(m[1] as string);
  return {
    types,
    computed,
    /** `TYPE LENGTH\n` written without put (the holding session writes the terminal session's job file so). */
    byHand: [...perl.matchAll(/'([a-z]{1,16}) ', length\(/g)].map((m) => m[1] as string),
    /** Calls of put without parentheses, or through a reference: not understood here. */
    otherCalls: [...perl.matchAll(/(?:\bput\s+['"$]|&put\b)/g)].map((m) => m[0]),
    /** Writes to the session's output: only put's own. */
    outputWrites: [...perl.matchAll(/\b(?:syswrite|print)\s*\(?\s*\{?\s*\$OUT\b/g)].length,
  };
}

/** The end of the block the text at `from` is in (brace depth below where it started). */
function blockEnd(perl: string, from: number): number {
  let depth = 0;
  for (let i = from; i < perl.length; i++) {
    if (perl[i] === '{') depth++;
    else if (perl[i] === '}' && --depth < 0) return i;
  }
  return perl.length;
}

/**
 * The types the Perl reads: each frame()/take() call binds the type to a variable (`my ($type, …) = frame()`,
 * `@f = take()`), which the rest of its block compares with `eq`/`ne` (for a call in a loop's condition, the
 * loop's body: the last `{` of that line).
 */
function perlReads(perl: string) {
  const types = new Set<string>();
  const sites = [...perl.matchAll(/(?:my\s*)?(\(\s*\$(\w+)[^()]*\)|@(\w+))\s*=\s*(?:frame|take)\(\)/g)];
  const unknownUses: string[] = [];
  for (const m of sites) {
    const variable = m[2] !== undefined ? `\\$${m[2]}` : `\\$${m[3]}\\[0\\]`;
    const lineStart = perl.lastIndexOf('\n', m.index) + 1;
    const line = perl.slice(lineStart, perl.indexOf('\n', m.index));
    const from = /^\s*(?:while|if|unless)\b/.test(line) ? lineStart + line.lastIndexOf('{') + 1 : m.index;
    const block = perl.slice(m.index, blockEnd(perl, from));
    for (const c of block.matchAll(new RegExp(`${variable}\\s+(?:eq|ne)\\s+'([a-z]{1,16})'`, 'g'))) types.add(c[1] as string);
    // (A type matched by a pattern, or looked up in a hash, would be a way of reading this test does not know.)
    for (const c of block.matchAll(new RegExp(`${variable}\\s*=~|\\{\\s*${variable}\\s*\\}`, 'g'))) unknownUses.push(c[0]);
  }
  return { types, sites: sites.length, calls: [...perl.matchAll(/\b(?:frame|take)\(\)/g)].length, unknownUses };
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The types sparehand writes: every call of frame() in lib/ (a template string's Perl is no call). */
function tsWrites() {
  const types = new Set<string>();
  const computed: string[] = [];
  for (const file of tsFiles(LIB)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'frame') {
        const first = node.arguments[0];
        if (first && ts.isStringLiteral(first)) types.add(first.text);
        else computed.push(`${file}: ${node.getText(source)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { types, computed };
}

describe('the frame table', () => {
  const perl = perlTexts().join('\n');
  const written = perlWrites(perl);
  const read = perlReads(perl);
  const here = tsWrites();

  it('finds every place the Perl writes a frame, and understands each', () => {
    expect(written.otherCalls).toEqual([]);
    expect(written.outputWrites).toBe(1);
    // The two computed types: the command's output pipes (out, err), and the holding session passing on the
    // terminal session's frames, which that same program wrote.
    expect(written.computed.sort()).toEqual(['$o->[1]', '$t']);
    expect(written.byHand).toEqual(['job']);
    expect(written.types.size).toBeGreaterThanOrEqual(sentBy('worker').length);
  });

  it('the Perl writes only what the table has from the worker, and every worker frame of the table', () => {
    expect([...written.types].sort()).toEqual(sentBy('worker'));
  });

  it('finds every place the Perl reads a frame, and understands each', () => {
    expect(read.calls).toBeGreaterThan(0);
    // Every frame()/take() call binds the type to a variable (frame's own call of take too, which returns it).
    expect(read.sites).toBe(read.calls);
    expect(read.unknownUses).toEqual([]);
  });

  it('the Perl reads only what the table has from here', () => {
    expect([...read.types].sort()).toEqual(sentBy('here'));
  });

  it('sparehand writes only what the table has from here, and every here frame of the table', () => {
    expect(here.computed).toEqual([]);
    expect([...here.types].sort()).toEqual(sentBy('here'));
  });

  it('every type can travel (the readers on both sides take 1 to 16 letters) and has a meaning and a bound', () => {
    for (const [type, spec] of Object.entries(TABLE)) {
      expect(type).toMatch(/^[a-z]{1,16}$/);
      expect(spec.meaning.length, type).toBeGreaterThan(10);
      expect(spec.max ?? MAX_PAYLOAD, type).toBeLessThanOrEqual(MAX_PAYLOAD);
    }
  });
});

describe('a frame read from the worker', () => {
  const f = (type: string, payload: string | Buffer = '') => ({ type, payload: Buffer.from(payload) });

  it('is taken when the worker sends its type and it fits its bound', () => {
    expect(unfitFromWorker(f('out', Buffer.alloc(64 * 1024)))).toBeUndefined();
    expect(unfitFromWorker(f('dat', Buffer.alloc(1 << 20)))).toBeUndefined();
    expect(unfitFromWorker(f('refused', Buffer.alloc(MAX_PAYLOAD)))).toBeUndefined();
  });

  it('of a type the worker does not send ends the reading', () => {
    expect(unfitFromWorker(f('nope'))).toBe('a frame the worker should not send (nope)');
    expect(unfitFromWorker(f('go'))).toBe('a frame the worker should not send (go)');
    expect(unfitFromWorker(f('constructor'))).toBe('a frame the worker should not send (constructor)');
    expect(frameSpec('toString')).toBeUndefined();
  });

  it('bigger than its type allows ends the reading', () => {
    expect(unfitFromWorker(f('claim', '1'.repeat(33)))).toBe('a claim frame of 33 bytes (at most 32)');
    expect(unfitFromWorker(f('done', 'x'))).toBe('a done frame of 1 bytes (at most 0)');
    expect(unfitFromWorker(f('out', Buffer.alloc(64 * 1024 + 1)))).toMatch(/^an? out frame of 65537 bytes/);
  });

  it('reads the small payloads as the session takes them', () => {
    expect(FRAMES.claim.parse(Buffer.from('3'))).toEqual({ slot: 3 });
    expect(FRAMES.claim.parse(Buffer.from('busy 4'))).toEqual({ busy: true, slots: 4 });
    expect(FRAMES.copy.parse(Buffer.from('same abc'))).toEqual({ same: true, gen: 'abc' });
    expect(FRAMES.copy.parse(Buffer.from('maybe abc'))).toBeUndefined();
    expect(FRAMES.ran.parse(Buffer.from('0 '))).toEqual({ status: 0 });
    expect(FRAMES.ran.parse(Buffer.from('1 10.5:12.0'))).toEqual({ status: 1, depsSeconds: 1.5 });
    expect(FRAMES.ran.parse(Buffer.from('x'))).toBeUndefined();
    expect(FRAMES.depfail.parse(Buffer.from('ab12\nnpm ERR! nope'))).toEqual({ hash: 'ab12', said: 'npm ERR! nope' });
    expect(FRAMES.depfail.parse(Buffer.from('not hex\n'))).toBeUndefined();
    expect(FRAMES.plat.parse(Buffer.from('linux x86_64 glibc'))).toEqual({ os: 'linux', arch: 'x86_64', libc: 'glibc' });
  });
});
