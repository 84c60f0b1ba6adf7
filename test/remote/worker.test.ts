import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { openrsyncBin } from '../helpers/rsyncs.js';
import { freePort, homeWithLoginPath, type Sshd, startSshd, trustHostKey } from '../helpers/sshd.js';
import { type WorkerHome, workerHome } from '../helpers/worker-env.js';

let sshd: Sshd;
let noRsync: Sshd;
let noPerl: Sshd;
let loginRsync: Sshd;
let loginRsyncDir: string;
let macWorker: Sshd;
const homes: WorkerHome[] = [];
const home = (...a: Parameters<typeof workerHome>) => {
  const h = workerHome(...a);
  homes.push(h);
  return h;
};

/** A PATH holding everything the probe and wrapper need but `missing` (rsync or perl). */
function pathWithout(missing: 'rsync' | 'perl'): string {
  const bin = tempDir('sparehand-bin-');
  for (const tool of ['bash', 'sh', 'mkdir', 'df', 'awk', 'head', 'cat', 'true', 'env', 'rm', 'mv', 'rsync', 'perl'].filter((t) => t !== missing)) {
    for (const d of ['/usr/bin', '/bin']) {
      if (existsSync(join(d, tool))) {
        symlinkSync(join(d, tool), join(bin, tool));
        break;
      }
    }
  }
  return bin;
}

beforeAll(async () => {
  sshd = await startSshd();
  // Not on its login PATH either (a login shell's /etc/profile would put /usr/bin back).
  const noRsyncBin = pathWithout('rsync');
  noRsync = await startSshd({ path: noRsyncBin, home: homeWithLoginPath(noRsyncBin) });
  // rsync only on the owner's login PATH (~/.profile adds its folder), as with Homebrew set up in ~/.zprofile.
  const rsyncOnly = tempDir('sparehand-rsync-bin-');
  symlinkSync(execFileSync('sh', ['-c', 'command -v rsync'], { encoding: 'utf8' }).trim(), join(rsyncOnly, 'rsync'));
  loginRsync = await startSshd({ path: noRsyncBin, home: homeWithLoginPath(`${rsyncOnly}:${noRsyncBin}`) });
  loginRsyncDir = rsyncOnly;
  // Without perl on its login PATH either: the owner's ~/.profile sets PATH to that folder only.
  const bin = pathWithout('perl');
  noPerl = await startSshd({ path: bin, home: homeWithLoginPath(bin) });
  macWorker = await startSshd({ path: `${openrsyncBin()}:/usr/local/bin:/usr/bin:/bin` });
});
afterAll(async () => {
  await Promise.all(homes.map((h) => h.close()));
  await sshd?.stop();
  await noRsync?.stop();
  await loginRsync?.stop();
  await noPerl?.stop();
  await macWorker?.stop();
});

describe('sparehand worker add / list / remove', () => {
  it('refuses an --identity that is no file, naming it, and adds nothing', async () => {
    const h = home([]);
    const before = readFileSync(join(h.home, '.config', 'sparehand', 'config.json'), 'utf8');
    for (const [given, what] of [
      ['/nonexistent', 'no such file'],
      [h.home, 'not a file'],
      ['~/.ssh/none', 'no such file'],
    ]) {
      const r = await sparehand(['worker', 'add', 'w', 'host', '--identity', given!], { env: h.env });
      expect([r.exitCode, r.stderr.split('\n')[0]]).toEqual([2, `sparehand: --identity ${given}: ${what}`]);
    }
    expect(readFileSync(join(h.home, '.config', 'sparehand', 'config.json'), 'utf8')).toBe(before);
  });

  it('stores workers in the config, replaces by name, lists them as JSON, removes them', async () => {
    const h = home([]);
    const env = { ...h.env };
    expect((await sparehand(['worker', 'add', 'big', 'me@build.lan', '--port', '2222', '--slots', '4', '--dir', '/srv/sh'], { env })).exitCode).toBe(0);
    mkdirSync(join(h.home, '.ssh'));
    writeFileSync(join(h.home, '.ssh', 'pi'), 'a key\n');
    const add2 = await sparehand(['worker', 'add', 'small', 'pi', '--identity', '~/.ssh/pi'], { env });
    expect(add2.stderr).toBe('sparehand: added worker "small" (pi); check it with `sparehand worker check small`\n');
    const list = await sparehand(['worker', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout)).toEqual({
      workers: [
        { name: 'big', destination: 'me@build.lan', port: 2222, slots: 4, dir: '/srv/sh' },
        { name: 'small', destination: 'pi', identity: '~/.ssh/pi', dir: '~/.cache/sparehand/work', slots: 2 },
      ],
    });
    const file = JSON.parse(readFileSync(join(h.home, '.config', 'sparehand', 'config.json'), 'utf8'));
    expect(file.workers[1]).toEqual({ name: 'small', destination: 'pi', identity: '~/.ssh/pi' });
    expect(file.env).toEqual(['npm_config_update_notifier']);
    expect((await sparehand(['worker', 'add', 'big', 'other'], { env })).stderr).toContain('replaced worker "big"');
    expect((await sparehand(['worker', 'remove', 'big'], { env })).exitCode).toBe(0);
    expect(JSON.parse((await sparehand(['worker', 'list', '--json'], { env })).stdout).workers.map((w: { name: string }) => w.name)).toEqual(['small']);
    const gone = await sparehand(['worker', 'remove', 'big'], { env });
    expect(gone.exitCode).toBe(2);
    expect(gone.stderr).toContain('no worker named "big"');
  });

  it('refuses a bad name or a destination that looks like an option', async () => {
    const h = home([]);
    expect((await sparehand(['worker', 'add', 'a b', 'host'], { env: h.env })).stderr).toContain('invalid worker: name');
    expect((await sparehand(['worker', 'add', 'ok', '--', '-oProxyCommand=x'], { env: h.env })).stderr).toContain('destination');
  });
});

describe('sparehand worker check', () => {
  it('reports its platform, latency, bash and rsync versions, free disk and free slots', async () => {
    const h = home([sshd]);
    const r = await sparehand(['worker', 'check', '--json'], { env: h.env });
    expect(r.exitCode).toBe(0);
    const [w] = JSON.parse(r.stdout).workers;
    expect(w).toMatchObject({ name: 'w0', ok: true, slots: 2, freeSlots: 2, problems: [], dir: '~/.cache/sparehand/work' });
    expect(w.bash).toMatch(/^5\.\d/);
    expect(w.rsync).toMatch(/^\d+\.\d+\.\d+/);
    expect(w.freeBytes).toBeGreaterThan(0);
    expect(w.platform).toMatch(/^linux (x86_64|arm64) glibc$/);
    expect(w.latencyMs).toBeGreaterThanOrEqual(0);
    const text = await sparehand(['worker', 'check', 'w0'], { env: h.env, cwd: tempDir() });
    expect(text.stdout).toMatch(
      /^w0: ok: Linux (x86-64|arm64) \(glibc\), latency \d+ ms \(connect \d+ ms\), bash 5\.\S+, rsync \S+, perl v5\.\S+, [\d.]+ GB free in .*, 2\/2 slots free\n$/,
    );
  });

  it('a Mac worker (openrsync as its rsync): works, and says what GNU rsync would add and how to get it', async () => {
    const h = home([macWorker]);
    const r = await sparehand(['worker', 'check', '--json'], { env: h.env });
    expect(r.exitCode).toBe(0);
    const [w] = JSON.parse(r.stdout).workers;
    expect(w).toMatchObject({ ok: true, rsync: 'openrsync (protocol 27)', rsyncFlavour: 'openrsync', rsyncPath: 'rsync', problems: [] });
    expect(w.notes).toEqual([
      'rsync on the worker is openrsync (protocol 27): runs work the same (git lists what .gitignore keeps out, whichever rsync is there). GNU rsync is the one sparehand is tested with most: `brew install rsync` on the worker (sparehand then finds /opt/homebrew/bin/rsync by itself)',
    ]);
    const text = await sparehand(['worker', 'check'], { env: h.env });
    expect(text.stdout).toMatch(
      /^w0: ok: .*, rsync openrsync \(protocol 27\), perl .*\n {2}note: rsync on the worker is openrsync \(protocol 27\): runs work the same .*`brew install rsync` on the worker/,
    );
    const gnu = JSON.parse((await sparehand(['worker', 'check', '--json'], { env: home([sshd]).env })).stdout).workers[0];
    expect([gnu.rsyncFlavour, gnu.rsyncPath, gnu.notes]).toEqual(['gnu', 'rsync', []]);
  });

  it('worker add finds the rsync of a worker it can reach, and says so', async () => {
    const h = home([]);
    const add = ['worker', 'add', 'mac', macWorker.destination, '--port', String(macWorker.port), '--identity', macWorker.identity];
    trustHostKey(h.home, macWorker);
    const r = await sparehand(add, { env: h.env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr.split('\n').slice(1, 3)).toEqual([
      'sparehand: worker "mac" has openrsync (protocol 27)',
      expect.stringMatching(/^sparehand: rsync on the worker is openrsync \(protocol 27\): runs work the same /),
    ]);
  });

  it("finds an rsync that is only on the owner's login PATH, and runs sync with it", async () => {
    const h = home([loginRsync]);
    const r = await sparehand(['worker', 'check'], { env: h.env });
    expect(r.stdout).toContain(`(${join(loginRsyncDir, 'rsync')})`);
    expect(r.stdout).not.toContain('rsync MISSING');
    const proj = tempDir('sparehand-proj-');
    writeFileSync(join(proj, 'a.txt'), 'a\n');
    // (Only what that worker's PATH holds: cat, not echo.)
    const run = await sparehand(['run', '--', 'cat a.txt && cat a.txt > b.txt'], { env: h.env, cwd: proj });
    expect([run.exitCode, run.stdout]).toEqual([0, 'a\n']);
    expect(readFileSync(join(proj, 'b.txt'), 'utf8')).toBe('a\n');
  });

  it('says rsync is missing on the worker', async () => {
    const h = home([noRsync]);
    const r = await sparehand(['worker', 'check'], { env: h.env });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('rsync MISSING');
    expect(r.stdout).toContain('fix: install rsync on the worker');
  });

  it('says perl is missing on the worker; a run there goes here with --or-local, naming it, and is 125 without', async () => {
    const h = home([noPerl]);
    const r = await sparehand(['worker', 'check'], { env: h.env });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('perl MISSING');
    expect(r.stdout).toContain('fix: install perl on the worker');
    const proj = tempDir('sparehand-proj-');
    const here = await sparehand(['run', '--or-local', '--', 'echo here'], { env: h.env, cwd: proj });
    expect([here.exitCode, here.stdout]).toEqual([0, 'here\n']);
    expect(here.stderr).toBe(
      'sparehand: running locally: w0: the worker has no perl, which sparehand needs to count slots and find what the command changed (install perl there)\n',
    );
    const not = await sparehand(['run', '--', 'echo here'], { env: h.env, cwd: proj });
    expect([not.exitCode, not.stdout]).toEqual([125, '']);
    expect(not.stderr).toContain('w0: the worker has no perl');
  });

  it('explains an unknown host key, a changed host key, a refused key and an unreachable host', async () => {
    const unknown = home([sshd]);
    writeFileSync(join(unknown.home, '.ssh', 'known_hosts'), '');
    const u = await sparehand(['worker', 'check', '--json'], { env: unknown.env });
    expect(JSON.parse(u.stdout).workers[0].problems).toEqual([
      `worker "w0" (${sshd.destination}): its host key is not in known_hosts (or does not match); refusing to connect`,
    ]);

    const changed = home([sshd]);
    writeFileSync(join(changed.home, '.ssh', 'known_hosts'), `${noRsync.knownHostsLine.replace(`:${noRsync.port}`, `:${sshd.port}`)}\n`);
    const c = await sparehand(['worker', 'check'], { env: changed.env });
    expect(c.exitCode).toBe(1);
    expect(c.stdout).toContain('its host key has CHANGED since it was recorded in known_hosts; refusing to connect');

    const auth = home([sshd]);
    const cfg = join(auth.home, '.config', 'sparehand', 'config.json');
    const conf = JSON.parse(readFileSync(cfg, 'utf8'));
    conf.workers[0].identity = join(noRsync.dir, 'host_key');
    writeFileSync(cfg, JSON.stringify(conf));
    const a = await sparehand(['worker', 'check'], { env: auth.env });
    expect(a.stdout).toContain(`authentication failed (${sshd.destination}: Permission denied (publickey).)`);

    const off = home([sshd]);
    conf.workers[0].port = await freePort();
    conf.workers[0].identity = sshd.identity;
    writeFileSync(join(off.home, '.config', 'sparehand', 'config.json'), JSON.stringify(conf));
    const o = await sparehand(['worker', 'check'], { env: off.env });
    expect(o.stdout).toContain(`unreachable (ssh: connect to host 127.0.0.1 port ${conf.workers[0].port}: Connection refused)`);
  });
});

describe('sparehand doctor', () => {
  it('checks ssh, rsync, the config and every worker; one JSON document', async () => {
    const h = home([sshd]);
    const r = await sparehand(['doctor', '--json'], { env: h.env });
    expect(r.exitCode).toBe(0);
    const d = JSON.parse(r.stdout);
    expect(d.ok).toBe(true);
    expect(d.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).toEqual([
      ['ssh', true],
      ['rsync', true],
      ['platform', true],
      ['config', true],
      ['local slots', true],
    ]);
    expect(d.checks[2].detail).toMatch(/^this machine is Linux (x86-64|arm64) \(glibc\) \(detected\)$/);
    expect(d.checks[0].detail).toMatch(/^OpenSSH_/);
    expect(d.workers.map((w: { name: string; ok: boolean }) => [w.name, w.ok])).toEqual([['w0', true]]);
    const bad = home([noRsync]);
    const t = await sparehand(['doctor'], { env: bad.env });
    expect(t.exitCode).toBe(1);
    expect(t.stdout).toMatch(
      /^ok {2}ssh: OpenSSH_.*\nok {2}rsync: rsync 3\.\d+\.\d+\S* \(\/\S+\/rsync\)\nok {2}platform: this machine is Linux \S+ \(glibc\) \(detected\)\nok {2}config: 1 worker configured\nok {2}local slots: \d+ at once \(.*\); runs here are started at nice \d+.*\nBAD worker w0: PROBLEM: /,
    );
  });

  it("on a Mac: names openrsync here and what it changes, and that Claude Code's command-line flags cannot be read without /proc", async () => {
    const h = home([macWorker]);
    const env = { ...h.env, PATH: `${openrsyncBin()}:${process.env.PATH}`, SPAREHAND_NO_PROC: '1' };
    const d = JSON.parse((await sparehand(['doctor', '--json'], { env })).stdout);
    expect(d.ok).toBe(true);
    expect(d.checks[1]).toEqual({
      name: 'rsync',
      ok: true,
      detail: `openrsync (protocol 27) (${openrsyncBin()}/rsync); rsync here is openrsync (protocol 27): runs work the same (git lists what .gitignore keeps out, whichever rsync is there). GNU rsync is the one sparehand is tested with most: \`brew install rsync\``,
    });
    expect(d.checks[2]).toMatchObject({
      name: 'permission parity',
      ok: true,
      detail: expect.stringMatching(/^no \/proc here \(a Mac\): for Claude Code the hook reads the permission rules in its settings files .*--allowedTools/),
    });
    expect(d.workers[0]).toMatchObject({ rsyncFlavour: 'openrsync', notes: [expect.stringMatching(/^rsync on the worker is openrsync/)] });
    const plain = JSON.parse((await sparehand(['doctor', '--json'], { env: h.env })).stdout);
    expect(plain.checks.map((c: { name: string }) => c.name)).not.toContain('permission parity');
  });
});

describe('sparehand run when the worker cannot be used', () => {
  it('unreachable: --or-local runs here with one line; without it, 125 and the fix', async () => {
    const h = home([sshd]);
    const cfg = join(h.home, '.config', 'sparehand', 'config.json');
    const conf = JSON.parse(readFileSync(cfg, 'utf8'));
    const port = await freePort();
    conf.workers[0].port = port;
    writeFileSync(cfg, JSON.stringify(conf));
    const proj = tempDir('sparehand-proj-');
    const r = await sparehand(['run', '--or-local', '--', 'echo "here $SPAREHAND_RUN"; exit 4'], { env: h.env, cwd: proj });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('here 1\n');
    expect(r.stderr).toBe(
      `sparehand: running locally: worker "w0" (${sshd.destination}): unreachable (ssh: connect to host 127.0.0.1 port ${port}: Connection refused)\n`,
    );
    const n = await sparehand(['run', '--', 'touch ran-here'], { env: h.env, cwd: proj });
    expect(n.exitCode).toBe(125);
    expect(n.stderr).toContain('unreachable');
    expect(n.stderr).toContain('or run with --or-local');
    expect(existsSync(join(proj, 'ran-here'))).toBe(false);
  });

  it('a changed host key: refused with a clear message, nothing runs on the worker', async () => {
    const h = home([sshd]);
    writeFileSync(join(h.home, '.ssh', 'known_hosts'), `${noRsync.knownHostsLine.replace(`:${noRsync.port}`, `:${sshd.port}`)}\n`);
    const proj = tempDir('sparehand-proj-');
    const marker = join(sshd.dir, `touched-${Date.now()}`);
    const r = await sparehand(['run', '--', `touch ${marker}`], { env: h.env, cwd: proj });
    expect(r.exitCode).toBe(125);
    expect(r.stderr).toContain('its host key has CHANGED');
    expect(existsSync(marker)).toBe(false);
  });

  it('--worker (or SPAREHAND_WORKER) names an unknown worker: 125 naming the option and the list; --or-local runs here', async () => {
    const h = home([sshd]);
    const r = await sparehand(['run', '--worker', 'nope', '--', 'true'], { env: h.env });
    expect(r.exitCode).toBe(125);
    expect(r.stderr).toBe(
      'sparehand: no worker named "nope" (--worker)\nsparehand: configured workers: w0; or run with --or-local to run here when no worker can\n',
    );
    const e = await sparehand(['run', '--', 'true'], { env: { ...h.env, SPAREHAND_WORKER: 'nope2' } });
    expect(e.exitCode).toBe(125);
    expect(e.stderr).toContain('no worker named "nope2" (SPAREHAND_WORKER)');
    const here = await sparehand(['run', '--or-local', '--', 'echo here'], { env: { ...h.env, SPAREHAND_WORKER: 'nope2' } });
    expect([here.exitCode, here.stdout]).toEqual([0, 'here\n']);
    expect(here.stderr).toBe('sparehand: running locally: no worker named "nope2" (SPAREHAND_WORKER)\n');
  });

  it('rsync missing here: the message names this machine, not the worker; --or-local runs here', async () => {
    const h = home([sshd]);
    const bin = tempDir('sparehand-bin-');
    // perl too: the local slot's lock holder is perl (every Mac and Linux has it).
    for (const tool of ['ssh', 'sh', 'bash', 'git', 'perl'])
      symlinkSync(
        execFileSync('sh', ['-c', `command -v ${tool}`])
          .toString()
          .trim(),
        join(bin, tool),
      );
    const env = { ...h.env, PATH: bin };
    const proj = tempDir('sparehand-proj-');
    const r = await sparehand(['run', '--or-local', '--', 'echo here'], { env, cwd: proj });
    expect([r.exitCode, r.stdout]).toEqual([0, 'here\n']);
    expect(r.stderr).toBe('sparehand: running locally: rsync is not installed here (it is not on PATH)\n');
    const n = await sparehand(['run', '--', 'echo here'], { env, cwd: proj });
    expect([n.exitCode, n.stdout]).toEqual([125, '']);
    expect(n.stderr).toBe(
      'sparehand: rsync is not installed here (it is not on PATH)\n' +
        'sparehand: install rsync here (Debian/Ubuntu: `apt-get install rsync`; a Mac has /usr/bin/rsync, or `brew install rsync`)\n',
    );
  });

  it('rsync missing on the worker: the project cannot be sent, so --or-local runs here; without it, 125', async () => {
    const h = home([noRsync]);
    const proj = tempDir('sparehand-proj-');
    const r = await sparehand(['run', '--or-local', '--', 'echo here'], { env: h.env, cwd: proj });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('here\n');
    expect(r.stderr).toBe(
      "sparehand: running locally: worker \"w0\" has no rsync (looked on its PATH, its owner's login PATH, and for Homebrew's and MacPorts')\n",
    );
    const n = await sparehand(['run', '--', 'echo here'], { env: h.env, cwd: proj });
    expect(n.exitCode).toBe(125);
    expect(n.stdout).toBe('');
    expect(n.stderr).toBe(
      "sparehand: worker \"w0\" has no rsync (looked on its PATH, its owner's login PATH, and for Homebrew's and MacPorts')\n" +
        'sparehand: install rsync on the worker (Debian/Ubuntu: `apt-get install rsync`; a Mac: `brew install rsync`)\n',
    );
  });
});
