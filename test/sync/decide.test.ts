// The decision for one change, over every op × type × what is here × what sparehand knows: a few explicit rows
// for each kind, and the rules that must hold in every one of the combinations (they run in milliseconds).
import { describe, expect, it } from 'vitest';
import type { Change, ChangeOp, EntryType } from '../../lib/remote/change.js';
import { DECISION_TABLE, type Here, type Known, conflictSentence, decide } from '../../lib/sync/decide.js';

const BASE = 'b'.repeat(32);
const NEW = 'n'.repeat(32);
const MINE = 'm'.repeat(32);
const OTHER = 'o'.repeat(32);

function change(op: ChangeOp, type: EntryType, extra: Partial<Change> = {}): Change {
  const content = type === 'f' && (op === 'C' || op === 'M');
  return {
    index: 0,
    op,
    type,
    mode: 0o644,
    mtime: 1,
    size: 0,
    path: 'p',
    target: type === 'l' ? 't' : '',
    base: op === 'C' || type === 'd' ? undefined : BASE,
    hash: op === 'D' || type === 'd' || type === 's' ? undefined : op === 'T' ? BASE : NEW,
    ...(content ? { staged: '/staged' } : {}),
    ...extra,
  };
}

const heres: Record<string, Here> = {
  absent: { kind: 'absent' },
  blocked: { kind: 'blocked' },
  'file=base': { kind: 'f', hash: BASE },
  'file=new': { kind: 'f', hash: NEW },
  'file=mine': { kind: 'f', hash: MINE },
  'file=other': { kind: 'f', hash: OTHER },
  'link=base': { kind: 'l', hash: BASE },
  'link=other': { kind: 'l', hash: OTHER },
  folder: { kind: 'd' },
  other: { kind: 'other' },
};
const knowns: Record<string, Known> = {
  sent: { sent: true, mine: [MINE] },
  output: { sent: false, mine: [MINE] },
  refused: { sent: true, mine: [], refused: 'a .git entry' },
  settings: { sent: true, mine: [], settings: true },
  twin: { sent: true, mine: [], caseTwin: 'P' },
  foreign: { sent: false, mine: [MINE], foreign: 'Linux x86-64' },
  'foreign-sent': { sent: true, mine: [], foreign: 'Linux x86-64' },
  'kept-there': { sent: true, mine: [], keptThere: true },
  'kept-output': { sent: false, mine: [MINE], keptThere: true },
};
const ops: ChangeOp[] = ['C', 'M', 'T', 'D'];
const types: EntryType[] = ['f', 'l', 'd', 's'];

function* combinations() {
  for (const op of ops)
    for (const type of types) {
      if (type === 'd' && (op === 'M' || op === 'T')) continue;
      for (const [h, here] of Object.entries(heres))
        for (const [k, known] of Object.entries(knowns)) yield { op, type, h, here, k, known, d: decide(change(op, type), here, known) };
    }
}

describe('decide', () => {
  it('explicit rows: each kind of outcome where it belongs', () => {
    const row = (op: ChangeOp, type: EntryType, h: keyof typeof heres, k: keyof typeof knowns, extra: Partial<Change> = {}) =>
      decide(change(op, type, extra), heres[h] as Here, knowns[k] as Known);
    expect(row('M', 'f', 'file=base', 'sent')).toEqual({ act: 'write', replace: true });
    expect(row('M', 'f', 'file=other', 'sent')).toEqual({ act: 'conflict', kind: 'changed-here', save: true });
    expect(row('M', 'f', 'file=mine', 'sent')).toEqual({ act: 'conflict', kind: 'changed-here', save: true });
    expect(row('M', 'f', 'file=mine', 'output')).toEqual({ act: 'write', replace: true });
    expect(row('M', 'f', 'absent', 'sent')).toEqual({ act: 'conflict', kind: 'deleted-here', save: true });
    expect(row('M', 'f', 'absent', 'output')).toEqual({ act: 'write', replace: false });
    expect(row('C', 'f', 'absent', 'sent')).toEqual({ act: 'write', replace: false });
    expect(row('C', 'f', 'file=new', 'sent')).toEqual({ act: 'skip', why: 'same' });
    expect(row('C', 'f', 'file=other', 'sent')).toEqual({ act: 'conflict', kind: 'exists-here', save: true });
    expect(row('C', 'f', 'file=mine', 'output')).toEqual({ act: 'write', replace: true });
    expect(row('C', 'f', 'absent', 'twin')).toEqual({ act: 'conflict', kind: 'case', save: true });
    expect(row('D', 'f', 'file=base', 'sent')).toEqual({ act: 'delete' });
    expect(row('D', 'f', 'file=other', 'sent')).toEqual({ act: 'conflict', kind: 'delete-kept', save: false });
    expect(row('D', 'f', 'file=mine', 'output')).toEqual({ act: 'delete' });
    expect(row('D', 'f', 'absent', 'sent')).toEqual({ act: 'skip', why: 'gone' });
    expect(row('T', 'f', 'file=base', 'sent')).toEqual({ act: 'touch' });
    expect(row('T', 'f', 'file=other', 'sent')).toEqual({ act: 'skip', why: 'untouched' });
    expect(row('T', 'f', 'absent', 'sent')).toEqual({ act: 'skip', why: 'untouched' });
    expect(row('T', 'f', 'absent', 'output')).toEqual({ act: 'fetch' });
    expect(row('T', 'f', 'file=mine', 'output')).toEqual({ act: 'fetch' });
    expect(row('T', 'f', 'absent', 'output', { staged: '/fetched' })).toEqual({ act: 'write', replace: false });
    expect(row('C', 'd', 'absent', 'sent')).toEqual({ act: 'mkdir' });
    expect(row('C', 'd', 'file=other', 'sent')).toEqual({ act: 'conflict', kind: 'blocked', save: false });
    expect(row('D', 'd', 'folder', 'sent')).toEqual({ act: 'rmdir' });
    expect(row('C', 'f', 'blocked', 'sent')).toEqual({ act: 'conflict', kind: 'blocked', save: true });
    expect(row('C', 'f', 'absent', 'refused')).toEqual({ act: 'conflict', kind: 'refused', save: false });
    expect(row('M', 'f', 'file=base', 'settings')).toEqual({ act: 'conflict', kind: 'settings', save: true });
    expect(row('C', 's', 'absent', 'sent')).toEqual({ act: 'conflict', kind: 'special', save: false });
    expect(row('C', 'f', 'absent', 'sent', { problem: 'no space' })).toEqual({ act: 'conflict', kind: 'not-applied', save: false });
    // Another platform's binary: kept on the worker, over nothing, over sparehand's own output, over yours.
    expect(row('C', 'f', 'absent', 'foreign')).toEqual({ act: 'keep' });
    expect(row('M', 'f', 'file=mine', 'foreign')).toEqual({ act: 'keep' });
    expect(row('M', 'f', 'file=base', 'foreign-sent')).toEqual({ act: 'keep' });
    expect(row('T', 'f', 'absent', 'foreign', { staged: '/fetched' })).toEqual({ act: 'keep' });
    expect(row('C', 'f', 'absent', 'refused')).toEqual({ act: 'conflict', kind: 'refused', save: false });
    // What the worker keeps, deleted or touched there: nothing to do here; changed into something that runs here: it comes.
    expect(row('D', 'f', 'file=other', 'kept-there')).toEqual({ act: 'skip', why: 'kept' });
    expect(row('T', 'f', 'absent', 'kept-output')).toEqual({ act: 'skip', why: 'kept' });
    expect(row('M', 'f', 'absent', 'kept-there')).toEqual({ act: 'write', replace: false });
    expect(row('M', 'f', 'file=other', 'kept-there')).toEqual({ act: 'conflict', kind: 'changed-here', save: true });
  });

  it("in every combination: nothing refused is ever written or saved, settings are never changed, yours is replaced only when it is the base or sparehand's", () => {
    let n = 0;
    for (const { op, type, here, known, d } of combinations()) {
      n++;
      const writes = d.act === 'write' || d.act === 'delete' || d.act === 'touch' || d.act === 'mkdir' || d.act === 'rmdir';
      const label = JSON.stringify({ op, type, here, known, d });
      if (known.refused) expect(d, label).toEqual({ act: 'conflict', kind: 'refused', save: false });
      if (known.settings) expect(writes, label).toBe(false);
      if (type === 's') expect(writes, label).toBe(false);
      if (here.kind === 'blocked') expect(writes, label).toBe(false);
      // Replacing or deleting what is here: only the base, or an output that is what sparehand left.
      const replaces = (d.act === 'write' && d.replace) || d.act === 'delete';
      if (replaces) expect(here.hash === BASE || (!known.sent && here.hash === MINE), label).toBe(true);
      if (d.act === 'write' && !d.replace) expect(here.kind, label).toBe('absent');
      if (d.act === 'conflict') expect(conflictSentence(d.kind, 'p', {}).length, label).toBeGreaterThan(10);
      // Another platform's binary is never written here, nor anything else kept: only a file's content is.
      if (known.foreign && type === 'f' && op !== 'D') expect(writes || d.act === 'fetch', label).toBe(false);
      if (d.act === 'keep') expect([known.foreign !== undefined, type, op !== 'D'], label).toEqual([true, 'f', true]);
      if (known.keptThere && (op === 'D' || op === 'T')) expect(writes || d.act === 'fetch' || d.act === 'conflict', label).toBe(false);
    }
    expect(n).toBeGreaterThan(500);
  });

  it('docs/run.md holds the decision table as DECISION_TABLE says it', async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync(new URL('../../docs/run.md', import.meta.url), 'utf8');
    for (const [did, here, result] of DECISION_TABLE) expect(doc).toContain(`| ${did} | ${here} | ${result} |`);
  });
});
