// Property: a split chain does what the original did. Random chains of heavy parts (a stub `cargo`), parts that
// must stay here (a stub `git`), light parts, `cd`s and shell changes, joined by `&&`, `||`, `;`, newlines and
// an optional final `&`, each part passing or failing, run as written and rewritten (with a fake sparehand that
// runs its part with `bash -c`): the same programs run in the same order with the same arguments, the same exit
// status, the same final folder; `git` never runs under sparehand.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bashQuote, classify, rewriteCommand } from '../../lib/classify/index.js';
import { tempDir, tool } from '../helpers/context.js';

// A stub program logs its name, arguments, the variable X (which `export X=1` sets) and whether it ran under sparehand.
const STUB = (name: string) => `echo "${name} $* X=\${X:-} \${SPAREHAND_RUN:-here}" >> "$LOG"\ncase "$*" in *fail*) exit 1 ;; esac\nexit 0`;
// The fake sparehand: `fake run --or-local -- PART` runs PART as a worker would: a new bash, in the same folder,
// without this shell's variables (a worker gets only a few named ones, and X is not one of them).
const FAKE = 'echo "send" >> "$LOG"\nexec env -i PATH="$PATH" LOG="$LOG" SPAREHAND_RUN=1 bash -c "$4"';

const part = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('cargo test', 'cargo test fail', 'cargo build', 'cargo test 2>&1 | tail -3') },
  { weight: 2, arbitrary: fc.constantFrom('git status', 'git fail', 'git diff --stat') },
  { weight: 2, arbitrary: fc.constantFrom('echo ok', 'true', 'false') },
  { weight: 2, arbitrary: fc.constantFrom('cd a', 'cd ..', 'cd a/b') },
  { weight: 1, arbitrary: fc.constantFrom('export X=1', 'X=2') },
);
const operator = fc.constantFrom(' && ', ' || ', '; ', '\n');
const chain = fc
  .tuple(fc.array(fc.tuple(part, operator), { minLength: 0, maxLength: 4 }), part, fc.constantFrom('', ' &'))
  .map(([rest, last, end]) => rest.map(([p, o]) => p + o).join('') + last + end);

// Runs each line in its own subshell, in its own copy of the folders, with its own log; returns the logs.
function runAll(lines: string[], bin: string): string[] {
  const dir = tempDir('sparehand-split-');
  const script = lines
    .map((l, id) => {
      // Deep enough that five `cd ..` stay inside the case's own folder.
      const base = join(dir, String(id));
      const work = join(base, '1', '2', '3', '4', '5');
      mkdirSync(join(work, 'a', 'b'), { recursive: true });
      const log = join(dir, `${id}.log`);
      writeFileSync(log, '');
      return `(\nexport LOG=${bashQuote(log)}\ncd ${bashQuote(work)}\n${l}\nstatus=$?\nwait\necho "exit $status in \${PWD#${bashQuote(base)}}" >> "$LOG"\n) </dev/null >/dev/null 2>&1\n`;
    })
    .join('');
  writeFileSync(join(dir, 'script.sh'), script);
  execFileSync('/bin/bash', [join(dir, 'script.sh')], { env: { PATH: `${bin}:${process.env.PATH}` }, stdio: 'ignore', timeout: 120_000 });
  return lines.map((_, id) => readFileSync(join(dir, `${id}.log`), 'utf8'));
}

describe('split chains keep their meaning', () => {
  it('for random chains of heavy, local, light, cd and shell-changing parts', () => {
    const bin = tempDir('sparehand-split-bin-');
    for (const name of ['cargo', 'git']) tool(bin, name, STUB(name));
    tool(bin, 'fake-sparehand', FAKE);

    const commands = [...new Set(fc.sample(chain, { numRuns: 1500, seed: 5 }))];
    const heavy = commands.map((c) => ({ command: c, c: classify(c) })).filter((x) => x.c.heavy);
    const split = heavy.filter((x) => x.c.wrap!.some((p) => !p.send && /\S/.test(p.text.replace(/[;&|\n]/g, ''))));
    // Sanity: the sample holds many heavy chains, and many of them split.
    expect({ heavy: heavy.length > 300, split: split.length > 150 }).toEqual({ heavy: true, split: true });

    const original = runAll(
      heavy.map((x) => x.command),
      bin,
    );
    const rewritten = runAll(
      heavy.map((x) => rewriteCommand(x.c, 'fake-sparehand')),
      bin,
    );
    for (const [i, x] of heavy.entries()) {
      const trace = (log: string) =>
        log
          .split('\n')
          .filter((l) => l && l !== 'send')
          .map((l) => l.replace(/ (here|1)$/, ''));
      expect({ command: x.command, trace: trace(rewritten[i] as string) }).toEqual({ command: x.command, trace: trace(original[i] as string) });
      // git never runs under sparehand.
      const gitSent = (rewritten[i] as string).split('\n').filter((l) => l.startsWith('git ') && l.endsWith(' 1'));
      expect({ command: x.command, gitSent }).toEqual({ command: x.command, gitSent: [] });
    }
  });
});
