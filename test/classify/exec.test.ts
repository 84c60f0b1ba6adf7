// The rewrite has exactly the effect of the original: each command runs once as written and once rewritten
// through the real CLI (no worker configured → it runs here); stdout, stderr, exit status, files and the folder
// the shell ends in must match. Every program records whether it ran under sparehand (SPAREHAND_RUN=1): the
// parts that must stay here (stub `git`, `./deploy.sh`, `npm start`) never do, and the heavy parts before
// them always do.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { bashQuote, classify, rewriteCommand } from '../../lib/classify/index.js';
import { tempDir, tool } from '../helpers/context.js';
import { BIN } from '../helpers/cli.js';

// Each program appends "<program> <SPAREHAND_RUN or no>" to $RAN_BY_LOG, a file outside the project.
const MAKEFILE = [
  'test:',
  '\t@echo "out: $${CI:-unset} $$(basename $$(pwd))"',
  '\t@echo "err: testing" >&2',
  '\t@echo built > result.txt',
  '\t@echo "make $${SPAREHAND_RUN:-no}" >> "$$RAN_BY_LOG"',
  'fail:',
  '\t@echo "make $${SPAREHAND_RUN:-no}" >> "$$RAN_BY_LOG"',
  '\t@echo failing; echo "bad news" >&2; exit 3',
  '',
].join('\n');

const node = (js: string) => `node -e "${js.replaceAll('"', '\\"')}"`;
const logged = (program: string) => `require('fs').appendFileSync(process.env.RAN_BY_LOG, '${program} ' + (process.env.SPAREHAND_RUN || 'no') + '\\n')`;
const PACKAGE = JSON.stringify({
  name: 'p',
  version: '1.0.0',
  scripts: {
    test: node(`console.log('unit ok'); console.error('warn: slow'); require('fs').writeFileSync('npm-result.txt', 'yes'); ${logged('npm test')}`),
    build: node(`require('fs').mkdirSync('dist', { recursive: true }); require('fs').writeFileSync('dist/out.txt', 'bundle'); ${logged('npm run build')}`),
    start: node(`console.log('serving ' + require('fs').readFileSync('dist/out.txt', 'utf8')); ${logged('npm start')}`),
  },
});
// Programs that must run here; a stub `git` on PATH and a deploy script in the project.
const STAYS_HERE = ['git', 'deploy', 'npm start'];
const GIT = `echo "git $*"\n[ -f result.txt ] && cat result.txt\necho "git \${SPAREHAND_RUN:-no}" >> "$RAN_BY_LOG"`;
const DEPLOY = `echo "deploying $(cat result.txt 2>/dev/null)"\necho "deploy \${SPAREHAND_RUN:-no}" >> "$RAN_BY_LOG"`;

// `{T}` is a folder outside the project (the local /tmp of the original); `{P}` the project; each run gets its own.
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
  'timeout -vk 5 20 make test',
  'make test &',
  'CI=1 make test && make test 2>&1 &',
  'make test >> {T}/append.log 2>&1 | cat',
  'make test > out.log 2>&1 | cat',
  '(make test; make fail) > both.log 2>&1',
  'make test &> {T}/all.log',
  'make fail &>> both.log || echo failed',
  'make test |& tail -2',
  'make fail 2>/dev/null |& cat',
  "bash -c 'make test && echo ok'",
  'npm test 2>&1',
  // chains split around the parts that stay here (issue 11)
  'make test && git status',
  'make test; git diff --stat',
  'npm test && git diff',
  'npm run build && npm start',
  'cd sub && make -f ../Makefile test && cd ..',
  'cd sub && make -f ../Makefile fail || echo failed',
  'make fail && git status',
  'make fail || git status',
  'make test 2>&1 | tail -2 && git diff',
  'make test > {T}/x.log 2>&1 || ./deploy.sh',
  'make test && ./deploy.sh',
  'make test && echo ok && git diff',
  'echo start && make test && git diff',
  'make fail || exit 1; git diff',
  'make test; make test &',
  'make test && git stash && make test',
  'npm run build && cd dist && cat out.txt',
  'make test | cat; git status',
];

// Every file under `dir` with its content (sparehand's own lines never land in one: `2>&1` goes inside the run).
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p, 'utf8');
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}
const strip = (s: string): string =>
  s
    .split('\n')
    .filter((l) => !l.startsWith('sparehand: '))
    .join('\n');

interface Run {
  /** The project. */
  p: string;
  /** A folder outside it. */
  t: string;
  /** The log each program appends to, and the file the final folder goes to. */
  log: string;
  bin: string;
}

function project(): Run {
  // The same folder names in every run: the Makefile prints the folder's name.
  const p = join(tempDir('sparehand-exec-'), 'proj');
  mkdirSync(join(p, 'sub'), { recursive: true });
  writeFileSync(join(p, 'Makefile'), MAKEFILE);
  writeFileSync(join(p, 'package.json'), PACKAGE);
  tool(p, 'deploy.sh', DEPLOY);
  const bin = tempDir('sparehand-exec-bin-');
  tool(bin, 'git', GIT);
  const log = join(tempDir('sparehand-exec-log-'), 'ran-by');
  writeFileSync(log, '');
  return { p, t: tempDir('sparehand-exec-tmp-'), log, bin };
}

const env = (r: Run) => ({
  PATH: `${r.bin}:${process.env.PATH}`,
  HOME: tempDir('sparehand-home-'),
  npm_config_update_notifier: 'false',
  LANG: 'C.UTF-8',
  RAN_BY_LOG: r.log,
  PROJECT: r.p,
});
// After the command, in the same shell: the folder it ended in, relative to the project.
const FINAL_FOLDER = '\nprintf "%s" "${PWD#"$PROJECT"}" > "$RAN_BY_LOG.folder"\n';

describe('rewritten commands run exactly like the originals', () => {
  beforeAll(() => {
    if (!existsSync(new URL('../../dist/cli.js', import.meta.url))) execFileSync('npm', ['run', 'build'], { stdio: 'ignore' });
  });
  const invocation = `${bashQuote(process.execPath)} ${bashQuote(BIN)}`;

  it.each(CASES)('%s', async (template) => {
    const a = project();
    const b = project();
    const fill = (x: Run) => template.replaceAll('{T}', x.t).replaceAll('{P}', x.p);
    const c = classify(fill(b));
    expect({ heavy: c.heavy, rule: c.rule }).toMatchObject({ heavy: true });
    const rewritten = rewriteCommand(c, invocation);
    const [orig, rew] = await Promise.all([
      execa('bash', ['-c', fill(a) + FINAL_FOLDER], { cwd: a.p, env: env(a), extendEnv: false, reject: false, stripFinalNewline: false }),
      execa('bash', ['-c', rewritten + FINAL_FOLDER], { cwd: b.p, env: env(b), extendEnv: false, reject: false, stripFinalNewline: false }),
    ]);
    const seen = (r: typeof orig, x: Run) => ({
      exit: r.exitCode,
      stdout: strip(r.stdout as string),
      stderr: strip(r.stderr as string),
      project: files(x.p),
      outside: files(x.t),
      folder: existsSync(`${x.log}.folder`) ? readFileSync(`${x.log}.folder`, 'utf8') : '(the shell exited)',
    });
    expect(seen(rew, b)).toEqual(seen(orig, a));

    // Which program ran, in order, and whether under sparehand.
    const ranBy = (x: Run) =>
      readFileSync(x.log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => ({ program: l.slice(0, l.lastIndexOf(' ')), sparehand: l.endsWith(' 1') }));
    const original = ranBy(a);
    const rewrite = ranBy(b);
    expect(rewrite.map((x) => x.program)).toEqual(original.map((x) => x.program));
    expect(original.every((x) => !x.sparehand)).toBe(true);
    // The parts that must stay here ran here; every heavy part before the first of them went through sparehand.
    const firstHere = rewrite.findIndex((x) => STAYS_HERE.includes(x.program));
    expect(rewrite.filter((x) => STAYS_HERE.includes(x.program)).every((x) => !x.sparehand)).toBe(true);
    const heavyBefore = rewrite.slice(0, firstHere < 0 ? undefined : firstHere);
    expect({ heavyBefore, any: heavyBefore.length > 0 }).toEqual({ heavyBefore: heavyBefore.map((x) => ({ ...x, sparehand: true })), any: true });
  });
});
