// Every way a run ends is one row of one table (lib/run/endings.ts): each kind has its status and its line, the
// statuses are the ones docs/run.md documents, and the sentences are the ones runs have always said.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isSparehandError } from '../../lib/errors.js';
import { ENDINGS, type RunEnd, endLine, endRun, endStatus } from '../../lib/run/endings.js';

const runMd = readFileSync(new URL('../../docs/run.md', import.meta.url), 'utf8');

/** The statuses of docs/run.md's "Exit status" table, as the table's rows write them. */
function documentedStatuses(): string[] {
  const section = runMd.split('\n## Exit status\n')[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| status') && !l.startsWith('| ---'))
    .map((l) => l.split('|')[1]?.trim() ?? '');
}

/** A row's status as docs/run.md writes it. */
const asDocumented = (s: (typeof ENDINGS)[keyof typeof ENDINGS]['status']): string =>
  s === 'own' ? "the command's own" : s === 'signal' ? '128+N' : String(s);

/** What `endRun` does with `end`: the lines said and the status, or the error thrown. */
function ended(end: RunEnd): { said: string; status?: number; error?: { code: string; message: string; hint: string | undefined } } {
  let said = '';
  try {
    const status = endRun({ stderr: { write: (s: string) => ((said += s), true) } as never }, end);
    return { said, status };
  } catch (e) {
    if (!isSparehandError(e)) throw e;
    return { said, error: { code: e.code, message: e.message, hint: e.hint } };
  }
}

describe('the table of endings', () => {
  it('has a row for each way a run ends, each with its status and its line (none only for the command ending as it did)', () => {
    expect(Object.keys(ENDINGS).sort()).toEqual(
      [
        'ran',
        'signalled',
        'late',
        'late-on-worker',
        'ran-past',
        'ran-past-here',
        'files-late',
        'refused-after-start',
        'not-sparehands',
        'lost-while-running',
        'report-untrusted',
        'lost-while-bringing-back',
        'outside-sandbox',
        'lost-before-start',
        'worker-refused',
        'no-worker-can',
        'no-worker-configured',
        'empty-command',
        'queue-without-local',
      ].sort(),
    );
    for (const [kind, row] of Object.entries(ENDINGS)) {
      expect(row.status, kind).toBeDefined();
      expect(row.line === null || typeof row.line === 'function', kind).toBe(true);
    }
    // The command's own end (the summary line is report.ts's) and a signal (its sender knows) say nothing of their own.
    expect(Object.keys(ENDINGS).filter((k) => ENDINGS[k as keyof typeof ENDINGS].line === null)).toEqual(['ran', 'signalled']);
  });

  it("gives only the statuses docs/run.md's table documents, and each of them", () => {
    const documented = documentedStatuses();
    expect(documented).toEqual(["the command's own", '125', '124', '128+N', '255']);
    const used = new Set(Object.values(ENDINGS).map((r) => asDocumented(r.status)));
    expect([...used].sort()).toEqual([...documented].sort());
  });

  it("throws sparehand's own endings to the CLI's edge (125 under run), each with a hint", () => {
    for (const [kind, row] of Object.entries(ENDINGS)) {
      if (!('thrown' in row)) continue;
      expect(row.status, kind).toBe(125);
      expect('hint' in row, kind).toBe(true);
    }
  });

  it('signals: 128+N', () => {
    expect(endStatus({ kind: 'signalled', signal: 'SIGINT' })).toBe(130);
    expect(endStatus({ kind: 'signalled', signal: 'SIGTERM' })).toBe(143);
    expect(ended({ kind: 'signalled', signal: 'SIGHUP' })).toEqual({ said: '', status: 129 });
    expect(ended({ kind: 'ran', status: 3 })).toEqual({ said: '', status: 3 });
  });

  it('says what runs have always said', () => {
    const limit = '--timeout 10m';
    expect(ended({ kind: 'late', limit: '--timeout 5s', why: 'all slots on box stayed busy' })).toEqual({
      said: 'sparehand: stopped: --timeout 5s was reached before the command started (all slots on box stayed busy); nothing ran\n',
      status: 124,
    });
    expect(ended({ kind: 'late-on-worker', limit, worker: 'box', deps: true })).toEqual({
      said: 'sparehand: stopped: --timeout 10m was reached before the command started on box (it was installing dependencies); nothing ran\n',
      status: 124,
    });
    expect(ended({ kind: 'ran-past', limit })).toEqual({
      said: 'sparehand: stopped: the command ran past --timeout 10m; nothing was brought back\n',
      status: 124,
    });
    expect(ended({ kind: 'ran-past-here', limit })).toEqual({ said: 'sparehand: stopped: the command ran past --timeout 10m\n', status: 124 });
    expect(ended({ kind: 'files-late', status: 0, limit, there: 'box:~/w' }).status).toBe(0);
    expect(ended({ kind: 'report-untrusted', status: 2, why: 'a bad frame', there: 'box:~/w' }).status).toBe(2);
    expect(ended({ kind: 'lost-while-running', worker: 'w2' })).toEqual({
      said: 'sparehand: the connection to w2 was lost while the command ran; its fate is unknown and nothing was brought back\n',
      status: 255,
    });
    expect(ended({ kind: 'lost-while-bringing-back', worker: 'w2' }).status).toBe(255);
    expect(ended({ kind: 'refused-after-start', worker: 'w2', why: 'no\nperl' })).toEqual({
      said: 'sparehand: w2 said it could not run the command after it had started it ("no\\nperl"); its fate is unknown and nothing was brought back\n',
      status: 255,
    });
    expect(ended({ kind: 'outside-sandbox', why: '--local', outside: 'x' })).toEqual({ said: 'sparehand: not running locally (--local): x\n', status: 125 });
    expect(ended({ kind: 'lost-before-start', worker: 'box' })).toEqual({
      said: '',
      error: {
        code: 'WORKER',
        message: 'the connection to box was lost before the command started; nothing ran there',
        hint: 'try `sparehand worker check box`; or run with --or-local to run here when no worker can',
      },
    });
    expect(ended({ kind: 'no-worker-can', why: 'w0: no perl', hint: 'install it there' }).error).toEqual({
      code: 'WORKER',
      message: 'w0: no perl',
      hint: 'install it there; or run with --or-local to run here when no worker can',
    });
  });

  it("docs/run.md's examples of a stop are the table's lines", () => {
    for (const end of [
      { kind: 'late', limit: '--timeout 5s', why: 'all slots on box stayed busy' },
      { kind: 'late-on-worker', limit: '--timeout 10m', worker: 'box', deps: true },
      { kind: 'ran-past', limit: '--timeout 10m' },
      { kind: 'ran-past-here', limit: '--timeout 10m' },
    ] satisfies RunEnd[])
      expect(runMd).toContain(`sparehand: ${endLine(end)}`);
  });
});
