// docs/hook.md's "real `sparehand classify` output": the commands are written by hand, what follows each is what the
// built CLI prints for it, written by scripts/agents-doc.js (the doc kept a copy that drifted from the classifier).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capture } from '../process.js';

export const EXAMPLES_BEGIN =
  '<!-- classify-examples:begin (what `sparehand classify` prints for each command, written by scripts/agents-doc.js; edit the commands only) -->';
export const EXAMPLES_END = '<!-- classify-examples:end -->';

const PROMPT = '$ sparehand classify';

/** The examples block: between the markers, one fenced block. */
function block(doc: string): { start: number; end: number } | undefined {
  const start = doc.indexOf(EXAMPLES_BEGIN);
  const end = doc.indexOf(EXAMPLES_END);
  return start < 0 || end < start ? undefined : { start, end: end + EXAMPLES_END.length };
}

/** Each example: its `$ sparehand classify …` line and the lines the doc shows under it. */
export function classifyExamples(doc: string): { line: string; shown: string }[] {
  const at = block(doc);
  if (!at) return [];
  const out: { line: string; shown: string[] }[] = [];
  for (const l of doc.slice(at.start, at.end).split('\n')) {
    if (l.startsWith(PROMPT)) out.push({ line: l.slice(2), shown: [] });
    else if (!l.startsWith('```') && !l.startsWith('<!--')) out.at(-1)?.shown.push(l);
  }
  return out.map((e) => ({ line: e.line, shown: e.shown.join('\n').trim() }));
}

/** The doc with the examples block written again: each command, and `output(line)` under it. */
export async function renderClassifyExamples(doc: string, output: (line: string) => Promise<string>): Promise<string> {
  const at = block(doc);
  if (!at) return doc;
  const examples: string[] = [];
  for (const e of classifyExamples(doc)) examples.push(`$ ${e.line}\n${(await output(e.line)).trim()}`);
  return `${doc.slice(0, at.start)}${EXAMPLES_BEGIN}\n\`\`\`\n${examples.join('\n\n')}\n\`\`\`\n${EXAMPLES_END}${doc.slice(at.end)}`;
}

/**
 * What `line` (`sparehand classify -- '…'`) prints, run by bash with `bin` (the built CLI) as `sparehand`, in a new
 * folder with a new HOME: no config, no worker (so no other platform), as a reader who just installed it.
 */
export async function classifyLineOutput(line: string, bin: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sparehand-doc-'));
  try {
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, 'home'));
    mkdirSync(join(dir, 'project'));
    const shim = join(dir, 'bin', 'sparehand');
    writeFileSync(shim, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} "$@"\n`);
    chmodSync(shim, 0o755);
    const r = await capture('bash', ['-c', line], {
      cwd: join(dir, 'project'),
      env: { PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, HOME: join(dir, 'home') },
      timeoutMs: 30_000,
    });
    if (r.code !== 0) throw new Error(`${line}: exit ${r.code}: ${r.stderr.trim()}`);
    return r.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
