// The worker is not trusted (issue 18): whatever runs there — the project's own command, hostile — cannot make
// this machine do more than the command could have done to the project here. A real sshd whose sessions run as an
// ordinary user (as a worker's owner is not root: sshd.ts's default), the real CLI, and a hostile command.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { files, gitProject, startMarker, until, write } from '../helpers/project.js';
import { type Sshd, asWorker, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, copyPath, workerHome } from '../helpers/worker-env.js';

let sshd: Sshd;
let wh: WorkerHome;
beforeAll(async () => {
  sshd = await startSshd();
  wh = workerHome([sshd], { env: ['DATABASE_URL'] });
});
afterAll(async () => {
  await wh?.close();
  await sshd?.stop();
});
const run = (proj: string, cmd: string, env: NodeJS.ProcessEnv = {}) => sparehand(['run', '--', cmd], { env: { ...wh.env, ...env }, cwd: proj });

describe('the results channel cannot be forged', () => {
  it('a hostile command that reads its ancestors and prints results blocks and frames: only its own files come back, with its own exit status', async () => {
    const proj = gitProject({ 'hostile.js': readFileSync(join(FIXTURES, 'hostile', 'hostile.js'), 'utf8') });
    const r = await run(proj, `${process.execPath} hostile.js`);
    expect(r.exitCode, r.stderr).toBe(1);
    // What it printed is its output, passed on as such (the frames and blocks included), and nothing more.
    expect(r.stdout).toContain('chg 51\nC f 493 1700000000');
    expect(r.stdout).toMatch(/hostile: \d+ tokens, reached .*\n$/);
    expect(files(proj)).toEqual({ 'hostile.js': expect.any(String), 'made-by-command.txt': 'legit\n' });
    expect(existsSync(join(proj, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(r.stderr).toMatch(/ran on w0: .*1 file back/);
  });
});

describe('the client checks every change itself', () => {
  it("a .git file and a bare repository made by the command: git here never runs the worker's program", async () => {
    const proj = gitProject({ 'sub/a.txt': 'a\n' });
    execFileSync('git', ['add', '-A'], { cwd: proj });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'x'], { cwd: proj });
    const pwned = join(tempDir(), 'pwned');
    const cmd = `git init -q --bare evil.git && git --git-dir=evil.git config core.fsmonitor "touch ${pwned}" && printf 'gitdir: ../evil.git\\n' > sub/.git`;
    const r = await run(proj, cmd);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(join(proj, 'sub', '.git'))).toBe(false);
    execFileSync('git', ['status', '--short'], { cwd: join(proj, 'sub') });
    expect(existsSync(pwned)).toBe(false);
  });

  it('setuid and setgid bits never come back: the file does, without them, and a line says so', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const r = await run(proj, 'cp /bin/sh tool && chmod 6755 tool');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(statSync(join(proj, 'tool')).mode & 0o7777).toBe(0o755);
    expect(r.stderr).toContain('sparehand: tool came back without its setuid, setgid or sticky bit\n');
  });

  it("a coding tool's settings changed by the command are a conflict; yours stay", async () => {
    const proj = gitProject({ '.claude/settings.json': '{}\n', 'src/a.ts': 'a\n' });
    const r = await run(proj, `printf '{"hooks":{"PreToolUse":[]}}' > .claude/settings.json && echo b > src/a.ts`);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(proj, '.claude/settings.json'), 'utf8')).toBe('{}\n');
    expect(readFileSync(join(proj, 'src/a.ts'), 'utf8')).toBe('b\n');
    expect(r.stderr).toMatch(
      /conflict: the command changed \.claude\/settings\.json, a coding tool's settings, which a run never changes; kept yours; the worker's version is in \.sparehand\/conflicts\//,
    );
  });

  it('names are printed safely: a file name holding a newline and escapes cannot forge a sparehand line', async () => {
    // Ignored here, so it is not sent: the command's file meets a different one here, a conflict that names it.
    const proj = gitProject({ 'a.txt': 'a\n', '.gitignore': 'x*\n' });
    const evil = 'x\nsparehand: ran on w0: sync 0.0s, run 0.0s, 0 files back, 0 conflicts\n\x1b[2K';
    write(proj, evil, 'mine\n');
    const r = await run(proj, `printf worker > "$(printf 'x\\nsparehand: ran on w0: sync 0.0s, run 0.0s, 0 files back, 0 conflicts\\n\\033[2K')"`);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'conflict: the command created "x\\nsparehand: ran on w0: sync 0.0s, run 0.0s, 0 files back, 0 conflicts\\n\\x1b[2K", but a different',
    );
    expect(r.stderr.split('\n').filter((l) => l.startsWith('sparehand: ran on'))).toHaveLength(1);
    expect(r.stderr).not.toContain('\x1b');
  });
});

describe("sparehand's own folder is checked before use", () => {
  it('a .sparehand that is a link to a folder outside: never followed, nothing written or deleted there, the results stay on the worker', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const outside = tempDir();
    mkdirSync(join(outside, 'incoming', 'old'), { recursive: true });
    writeFileSync(join(outside, 'keep.txt'), 'keep\n');
    symlinkSync(outside, join(proj, '.sparehand'));
    const r = await run(proj, 'echo b > a.txt && echo n > new.txt; exit 3');
    expect(r.exitCode).toBe(3);
    expect(readdirSync(outside).sort()).toEqual(['incoming', 'keep.txt']);
    expect(readdirSync(join(outside, 'incoming'))).toEqual(['old']);
    expect(readFileSync(join(proj, 'a.txt'), 'utf8')).toBe('a\n');
    expect(r.stderr).toMatch(
      /sparehand: nothing was written here: sparehand's folder here is refused: \.sparehand is a link \(to .*\), which sparehand never follows; it stays in the worker's copy \(w0:.*\/0\)/,
    );
    expect(lstatSync(join(proj, '.sparehand')).isSymbolicLink()).toBe(true);
  });
});

describe("nothing of this machine's credentials reaches the worker", () => {
  it('ForwardAgent yes in ~/.ssh/config: the command sees no agent', async () => {
    const home = workerHome([sshd]);
    writeFileSync(join(home.home, '.ssh', 'config'), 'Host *\n  ForwardAgent yes\n  ForwardX11 yes\n');
    const sock = join(tempDir(), 'agent.sock');
    const agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
    try {
      expect(await until(() => existsSync(sock))).toBe(true);
      const proj = gitProject({ 'a.txt': 'a\n' });
      const r = await sparehand(['run', '--quiet', '--', 'echo "agent=${SSH_AUTH_SOCK:-none} display=${DISPLAY:-none}"'], {
        env: { ...home.env, SSH_AUTH_SOCK: sock },
        cwd: proj,
      });
      expect(r.stdout, r.stderr).toBe('agent=none display=none\n');
    } finally {
      agent.kill();
      await home.close();
    }
  });

  it("a forwarded variable's value is in no process's argv, here or there, while the command runs; the command has it", async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const secret = `postgres://app:s3cr3t-${process.pid}@db/x`;
    const mark = startMarker();
    const p = run(proj, `echo "url=$DATABASE_URL"; ${mark.touch}; sleep 2`, { DATABASE_URL: secret });
    expect(await until(mark.started)).toBe(true);
    const argvs = readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          return '';
        }
      });
    const r = await p;
    expect(r.stdout).toContain(`url=${secret}\n`);
    expect(argvs.filter((a) => a.includes('s3cr3t'))).toEqual([]);
    expect(argvs.some((a) => a.includes('perl'))).toBe(true);
  });

  it('secret holders are never sent, in any case; a .env sent once with sendSecrets is deleted from the worker when it is off', async () => {
    const holders = [
      '.pgpass',
      '.kube/config',
      'terraform.tfstate',
      'infra/prod.tfstate.backup',
      'keys/release.jks',
      'app.KEYSTORE',
      'gcp-credentials.json',
      'serviceAccount-prod.json',
      '.vault-token',
      '.htpasswd',
      '.terraformrc',
      '.Env.local',
      'certs/tls.PEM',
    ];
    const proj = gitProject({
      'a.txt': 'a\n',
      ...Object.fromEntries(holders.map((h) => [h, 'secret\n'])),
      '.yarnrc.yml': 'npmAuthToken: "tok"\n',
      'sub/.yarnrc.yml': 'nodeLinker: node-modules\n',
    });
    const r = await run(proj, 'true');
    expect(r.exitCode, r.stderr).toBe(0);
    const copy = copyPath(wh, sshd.remoteDir, proj);
    expect([...holders, '.yarnrc.yml'].filter((h) => existsSync(join(copy, h)))).toEqual([]);
    expect(existsSync(join(copy, 'sub/.yarnrc.yml'))).toBe(true);
    const sending = workerHome([sshd], { sync: { sendSecrets: true } });
    const proj2 = gitProject({ 'a.txt': 'a\n', '.env': 'SECRET=1\n' });
    expect((await sparehand(['run', '--', 'true'], { env: sending.env, cwd: proj2 })).exitCode).toBe(0);
    const copy2 = copyPath(sending, sshd.remoteDir, proj2);
    expect(existsSync(join(copy2, '.env'))).toBe(true);
    copyFileSync(join(wh.home, '.config', 'sparehand', 'config.json'), join(sending.home, '.config', 'sparehand', 'config.json'));
    expect((await sparehand(['run', '--', 'true'], { env: sending.env, cwd: proj2 })).exitCode).toBe(0);
    expect(existsSync(join(copy2, '.env'))).toBe(false);
    await sending.close();
  });
});

describe('git on the worker sees this project or nothing', () => {
  it("a repository above the copies (the worker owner's HOME in git) is never seen", async () => {
    asWorker(['git', 'init', '-q', sshd.home]);
    const proj = gitProject({ 'a.txt': 'a\n' });
    const r = await run(proj, 'git rev-parse --show-toplevel 2>&1; echo "git=$?"');
    expect(r.stdout).toMatch(/not a git repository[\s\S]*git=128\n/);
  });

  it('a project in a git worktree runs: its .git file is not sent, and git there says no repository', async () => {
    const main = gitProject({ 'a.txt': 'a\n' });
    execFileSync('git', ['add', '-A'], { cwd: main });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'x'], { cwd: main });
    const tree = join(tempDir(), 'feature');
    execFileSync('git', ['worktree', 'add', '-q', tree], { cwd: main });
    const r = await run(tree, 'test -e .git && echo has-git; cat a.txt; echo b > b.txt');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('a\n');
    expect(readFileSync(join(tree, 'b.txt'), 'utf8')).toBe('b\n');
    expect(readFileSync(join(tree, '.git'), 'utf8')).toMatch(/^gitdir: /);
  });
});
