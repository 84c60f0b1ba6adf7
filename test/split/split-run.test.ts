// `sparehand run --split N`: one test suite as shards on the slots of two real workers (test sshds, added the
// README way, ordinary worker users), one result: the output in shard order with each failure once, the worst
// exit status, one summary line, the shards of one run together in `log`; two shards writing one file leave a
// conflict, never a lost version; a shard whose worker dies says so and the run's status says it.
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionFor } from '../../lib/remote/connection.js';
import { sshControlArgs } from '../../lib/remote/ssh-args.js';
import { sparehand } from '../helpers/cli.js';
import { reachableByAll, sharedTempDir } from '../helpers/context.js';
import { gitProject, until } from '../helpers/project.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, workerHome } from '../helpers/worker-env.js';

let w0: Sshd;
let w1: Sshd;
const homes: WorkerHome[] = [];
beforeAll(async () => {
  [w0, w1] = await Promise.all([startSshd(), startSshd()]);
});
afterAll(async () => {
  await Promise.all(homes.map((h) => h.close()));
  await Promise.all([w0?.stop(), w1?.stop()]);
});

/** A HOME whose workers w0 and w1 have `slots` each (`dir`: a folder of its own there, whose slot count is this one's). */
function home(slots: number, dir?: string): WorkerHome {
  const h = workerHome([w0, w1], { slots, ...(dir ? { dir } : {}) });
  homes.push(h);
  return h;
}

/** Processes (here, or on the workers: this machine) whose command line holds `text`. */
function running(text: string): string[] {
  const r = spawnSync('pgrep', ['-af', '--', text], { encoding: 'utf8' });
  return r.stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '' && !l.includes('pgrep'));
}

/** A node:test file whose one test is named `name` and runs `body`. */
const nodeTest = (name: string, body = '') => `const test = require('node:test');\ntest(${JSON.stringify(name)}, () => {${body}});\n`;

describe('run --split on two workers', () => {
  it("Node's runner, one failing shard: the worst status, the failure once, shards in order, one summary, together in the log", async () => {
    const h = home(2);
    const proj = gitProject({
      't1.test.js': nodeTest('one'),
      't2.test.js': nodeTest('two'),
      't3.test.js': nodeTest('three', "throw new Error('boom-three');"),
      't4.test.js': nodeTest('four'),
    });
    const r = await sparehand(['run', '--split', '4', '--', 'node --test'], { env: h.env, cwd: proj });
    expect(r.exitCode, r.stderr).toBe(1);
    // Each test's lines once, in the order of the shards (Node gives shard i the i-th file of four).
    expect(r.stdout.match(/^not ok \d+ - /gm)).toEqual(['not ok 1 - ']);
    expect(r.stdout.match(/boom-three/g)?.length).toBe(1);
    const order = ['one', 'two', 'three', 'four'].map((n) => r.stdout.indexOf(`# Subtest: ${n}`));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const summary = r.stderr.match(/^sparehand: split ([0-9a-f]{8}): 4 shards on (.+): 3 passed, 1 failed \(shard 3\) in [0-9.]+s$/m);
    expect(summary, r.stderr).not.toBeNull();
    expect(summary?.[2]?.split(', ').sort()).toEqual(['w0', 'w1']);
    // No shard's own summary line: the run has one.
    expect(r.stderr).not.toMatch(/ran on w[01]:/);
    const log = await sparehand(['log', '--json'], { env: h.env, cwd: proj });
    const runs = (
      JSON.parse(log.stdout) as { runs: Array<{ split?: { id: string; shard: number; of: number }; where: string; exit: number; command: string }> }
    ).runs;
    const shards = runs.filter((e) => e.split?.id === summary?.[1]).sort((a, b) => (a.split?.shard ?? 0) - (b.split?.shard ?? 0));
    expect(shards.map((e) => [e.split?.shard, e.split?.of, e.exit, e.command])).toEqual([
      [1, 4, 0, 'node --test --test-shard=1/4'],
      [2, 4, 0, 'node --test --test-shard=2/4'],
      [3, 4, 1, 'node --test --test-shard=3/4'],
      [4, 4, 0, 'node --test --test-shard=4/4'],
    ]);
    expect(shards.every((e) => e.where === 'w0' || e.where === 'w1')).toBe(true);
    const text = await sparehand(['log'], { env: h.env, cwd: proj });
    expect(text.stdout).toMatch(
      new RegExp(`^split ${summary?.[1]}: 4 shards, exit 1\\n  shard 1/4  .*\\n  shard 2/4  .*\\n  shard 3/4  .*\\n  shard 4/4  `, 'm'),
    );
  });

  it('vitest, through its own launcher in the project, --split auto: --shard=i/N per free slot, every file once', async () => {
    const h = home(2);
    // (The repository's own vitest, where the workers' ordinary user can reach it.)
    const vitest = join(reachableByAll(fileURLToPath(new URL('../../node_modules', import.meta.url))), 'vitest', 'vitest.mjs');
    const proj = gitProject({
      'bin/vitest': `#!/bin/sh\nexec node ${quote([vitest])} "$@"\n`,
      'a.test.js': "test('alpha', () => expect(1).toBe(1));\n",
      'b.test.js': "test('beta', () => expect(2).toBe(2));\n",
      'c.test.js': "test('gamma', () => expect(3).toBe(3));\n",
    });
    chmodSync(join(proj, 'bin/vitest'), 0o755);
    // auto: the four free slots of w0 and w1, so one shard gets no file (and passes, as the whole would).
    const r = await sparehand(['run', '--split', 'auto', '--', './bin/vitest run --globals --reporter=verbose'], { env: h.env, cwd: proj });
    expect(r.exitCode, r.stderr + r.stdout).toBe(0);
    // (The worker's vitest colours its output: TERM is forwarded.)
    const out = r.stdout.replace(/\x1b\[[0-9;]*m/g, '');
    for (const name of ['alpha', 'beta', 'gamma']) expect(out.match(new RegExp(`✓ [a-c]\\.test\\.js > ${name}`, 'g'))?.length, out).toBe(1);
    expect(r.stderr).toMatch(/^sparehand: split [0-9a-f]{8}: 4 shards \(vitest --shard\)$/m);
    expect(r.stderr).toMatch(/^sparehand: split [0-9a-f]{8}: 4 shards on .+: 4 passed in [0-9.]+s$/m);
  });

  it('two shards writing the same file: one version here, the other kept as a conflict', async () => {
    const h = home(2);
    const write = (who: string) => `require('node:fs').writeFileSync('report.txt', ${JSON.stringify(`${who}\n`)});`;
    const proj = gitProject({ 'a.test.js': nodeTest('a', write('from a')), 'b.test.js': nodeTest('b', write('from b')) });
    const r = await sparehand(['run', '--split', '2', '--', 'node --test'], { env: h.env, cwd: proj });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^sparehand: conflict: .*report\.txt.*; kept yours; the worker's version is in (\S+)$/m);
    const saved = /the worker's version is in (\S+)$/m.exec(r.stderr)?.[1] as string;
    const both = [readFileSync(join(proj, 'report.txt'), 'utf8'), readFileSync(join(proj, saved), 'utf8')].sort();
    expect(both).toEqual(['from a\n', 'from b\n']);
    expect(r.stderr).toMatch(/2 shards on .+: 2 passed in [0-9.]+s; 1 conflict \(said above\)$/m);
  });

  it('two shards writing the same ignored output: still a conflict, never one version replacing the other', async () => {
    const h = home(2);
    // The second shard writes a moment later, so that the first's version is here (and recorded) before it comes back.
    const write = (who: string, wait: number) =>
      `require('node:child_process').execSync('sleep ${wait}'); require('node:fs').mkdirSync('out', { recursive: true }); require('node:fs').writeFileSync('out/report.txt', ${JSON.stringify(`${who}\n`)});`;
    const proj = gitProject({ '.gitignore': 'out/\n', 'a.test.js': nodeTest('a', write('from a', 0)), 'b.test.js': nodeTest('b', write('from b', 2)) });
    const r = await sparehand(['run', '--split', '2', '--', 'node --test'], { env: h.env, cwd: proj });
    expect(r.exitCode, r.stderr).toBe(0);
    const saved = /^sparehand: conflict: .*out\/report\.txt.*the worker's version is in (\S+)$/m.exec(r.stderr)?.[1];
    expect(saved, r.stderr).toBeDefined();
    expect([readFileSync(join(proj, 'out/report.txt'), 'utf8'), readFileSync(join(proj, saved as string), 'utf8')]).toEqual(['from a\n', 'from b\n']);
  });

  it('Ctrl-C stops every shard (130, nothing left running); --timeout bounds the whole (124)', async () => {
    const h = home(2);
    const mark = sharedTempDir('sparehand-split-mark-');
    const slow = (n: string) =>
      nodeTest(n, `require('node:fs').writeFileSync(${JSON.stringify(join(mark, n))}, ''); require('node:child_process').execSync('sleep 41.5');`);
    const proj = gitProject({ 'a.test.js': slow('a'), 'b.test.js': slow('b') });
    const p = sparehand(['run', '--split', '2', '--', 'node --test'], { env: h.env, cwd: proj });
    expect(await until(() => readdirSync(mark).length === 2, 30_000)).toBe(true);
    // `status` shows the two shards of one run together, by its id.
    const status = await sparehand(['status'], { env: h.env, cwd: proj });
    const ids = [...status.stdout.matchAll(/slot \d+: \[split ([0-9a-f]{8}) ([12])\/2\] node --test --test-shard=\2\/2 /g)];
    expect(ids.map((m) => m[2]).sort(), status.stdout).toEqual(['1', '2']);
    expect(new Set(ids.map((m) => m[1])).size).toBe(1);
    p.kill('SIGINT');
    const r = await p;
    expect(r.exitCode, r.stderr).toBe(130);
    expect(await until(() => running('sleep 41.5').length === 0, 10_000), running('sleep 41.5').join('\n')).toBe(true);

    const t = Date.now();
    const timed = await sparehand(['run', '--split', '2', '--timeout', '6s', '--', 'node --test'], { env: h.env, cwd: proj });
    expect(timed.exitCode, timed.stderr).toBe(124);
    expect(Date.now() - t).toBeLessThan(30_000);
    expect(timed.stderr).toMatch(/2 shards on .+: 0 passed, 2 failed \(shards 1, 2\) in [0-9.]+s$/m);
    expect(await until(() => running('sleep 41.5').length === 0, 10_000)).toBe(true);
  });

  it('a shard whose worker dies mid-run: its fate said, the run exits 255, the other shard stands; then the shards go to the worker left', async () => {
    // One slot on each: a shard on each worker.
    const h = home(1, 'one-slot');
    const mark = sharedTempDir('sparehand-split-mark-');
    const proj = gitProject({
      'a.test.js': nodeTest('quick'),
      'b.test.js': nodeTest(
        'slow',
        `require('node:fs').writeFileSync(${JSON.stringify(join(mark, 'where'))}, process.cwd()); require('node:child_process').execSync('sleep 30');`,
      ),
    });
    const p = sparehand(['run', '--split', '2', '--', 'node --test'], { env: h.env, cwd: proj });
    expect(await until(() => readdirSync(mark).includes('where'), 30_000)).toBe(true);
    const cwd = readFileSync(join(mark, 'where'), 'utf8');
    const dying = cwd.startsWith(w0.home) ? { s: w0, name: 'w0' } : { s: w1, name: 'w1' };
    // The worker goes: its connection dropped at once (as a dead machine's would be) and its sshd no longer answers.
    const worker = { name: dying.name, destination: dying.s.destination, port: dying.s.port, identity: dying.s.identity };
    const check = spawnSync('ssh', sshControlArgs(worker, connectionFor(h, worker), 'check'), { env: h.env, encoding: 'utf8' });
    const pid = /pid=(\d+)/.exec(check.stderr)?.[1];
    expect(pid, check.stderr).toBeDefined();
    await dying.s.stop();
    process.kill(Number(pid), 'SIGKILL');
    const r = await p;
    expect(r.exitCode, r.stderr).toBe(255);
    expect(r.stderr).toContain(`sparehand: the connection to ${dying.name} was lost while the command ran; its fate is unknown and nothing was brought back`);
    expect(r.stderr).toMatch(/2 shards on .+: 1 passed, 1 failed \(shard 2\) in [0-9.]+s$/m);
    expect(r.stdout).toMatch(/^ok 1 - quick$/m);

    // With that worker gone, a split run's shards go to the one left (its one slot in turn), and pass.
    const left = dying.name === 'w0' ? 'w1' : 'w0';
    const again = gitProject({ 'a.test.js': nodeTest('a'), 'b.test.js': nodeTest('b') });
    const r2 = await sparehand(['run', '--split', '2', '--', 'node --test'], { env: h.env, cwd: again });
    expect(r2.exitCode, r2.stderr).toBe(0);
    expect(r2.stderr).toMatch(new RegExp(`^sparehand: split [0-9a-f]{8}: 2 shards on ${left}: 2 passed in [0-9.]+s$`, 'm'));
  });
});
