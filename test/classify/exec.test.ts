// The rewrite has exactly the effect of the original: each command runs once as written and once rewritten
// through the real CLI (no worker configured → it runs here); stdout, stderr, exit status and files must match.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { bashQuote, classify, rewriteCommand } from '../../lib/classify/index.js';
import { tempDir } from '../helpers/context.js';
import { BIN } from '../helpers/cli.js';

const MAKEFILE = [
  'test:',
  '\t@echo "out: $${CI:-unset} $$(basename $$(pwd))"',
  '\t@echo "err: testing" >&2',
  '\t@echo built > result.txt',
  '\t@echo "$${SPAREHAND_RUN:-no}" >> $(CURDIR)/.ran-by',
  'fail:',
  '\t@echo "$${SPAREHAND_RUN:-no}" >> $(CURDIR)/.ran-by',
  '\t@echo failing; echo "bad news" >&2; exit 3',
  '',
].join('\n');

const PACKAGE = JSON.stringify({
  name: 'p',
  version: '1.0.0',
  scripts: { test: "node -e \"console.log('unit ok'); console.error('warn: slow'); require('fs').writeFileSync('npm-result.txt', 'yes'); require('fs').appendFileSync('.ran-by', (process.env.SPAREHAND_RUN || 'no') + '\\n')\"" },
});

// `{T}` is a folder outside the project (the local /tmp of the original); each run gets its own.
const CASES = [
  'make test',
  'make test > out.log 2>&1',
  'make test > {T}/x.log 2>&1',
  'make test 2>&1 | tail -2',
  'make test 2>/dev/null | tee {T}/tee.log | grep out',
  'CI=1 make test',
  'cd sub && make -f ../Makefile test',
  'cd {P}/sub && CI=yes make -f ../Makefile test',
  '(cd sub && make -f ../Makefile test) 2>err.txt',
  'make fail; echo "status $?"',
  'make fail',
  'make test && make fail || echo "it\'s \\"quoted\\" and ‘unicode’ 🙂"',
  'timeout 20 make fail',
  'make test &',
  'CI=1 make test && make test 2>&1 &',
  'make test 2>&1 >> {T}/append.log | cat',
  "bash -c 'make test && echo ok'",
  'npm test 2>&1',
];

// Every file under `dir` with its content, `sparehand:` lines removed (they land in files with `2>&1`).
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name !== '.ran-by') out[relative(dir, p)] = strip(readFileSync(p, 'utf8'));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}
const strip = (s: string): string => s.split('\n').filter((l) => !l.startsWith('sparehand: ')).join('\n');

function project(): { p: string; t: string } {
  // The same folder names in every run: the Makefile prints the folder's name.
  const p = join(tempDir('sparehand-exec-'), 'proj');
  mkdirSync(join(p, 'sub'), { recursive: true });
  writeFileSync(join(p, 'Makefile'), MAKEFILE);
  writeFileSync(join(p, 'package.json'), PACKAGE);
  const t = tempDir('sparehand-exec-tmp-');
  return { p, t };
}

const env = () => ({ PATH: process.env.PATH, HOME: tempDir('sparehand-home-'), npm_config_update_notifier: 'false', LANG: 'C.UTF-8' });

describe('rewritten commands run exactly like the originals', () => {
  beforeAll(() => {
    if (!existsSync(new URL('../../dist/cli.js', import.meta.url))) execFileSync('npm', ['run', 'build'], { stdio: 'ignore' });
  });
  const invocation = `${bashQuote(process.execPath)} ${bashQuote(BIN)}`;

  it.each(CASES)('%s', async (template) => {
    const a = project();
    const b = project();
    const fill = (x: { p: string; t: string }) => template.replaceAll('{T}', x.t).replaceAll('{P}', x.p);
    const c = classify(fill(b));
    expect({ heavy: c.heavy, rule: c.rule }).toMatchObject({ heavy: true });
    const rewritten = rewriteCommand(c, invocation);
    const [orig, rew] = await Promise.all([
      execa('bash', ['-c', fill(a)], { cwd: a.p, env: env(), extendEnv: false, reject: false, stripFinalNewline: false }),
      execa('bash', ['-c', rewritten], { cwd: b.p, env: env(), extendEnv: false, reject: false, stripFinalNewline: false }),
    ]);
    const seen = (r: typeof orig, x: { p: string; t: string }) => ({
      exit: r.exitCode,
      stdout: strip(r.stdout as string),
      stderr: strip(r.stderr as string),
      project: files(x.p),
      outside: files(x.t),
    });
    expect(seen(rew, b)).toEqual(seen(orig, a));
    // It really went through sparehand (which sets SPAREHAND_RUN=1 for the command), and the original did not.
    const ranBy = (x: { p: string }) => [...new Set(readdirSync(x.p, { recursive: true }).filter((f) => String(f).endsWith('.ran-by')).map((f) => readFileSync(join(x.p, String(f)), 'utf8').trim().split('\n')).flat())];
    expect({ original: ranBy(a), rewritten: ranBy(b) }).toEqual({ original: ['no'], rewritten: ['1'] });
  });
});
