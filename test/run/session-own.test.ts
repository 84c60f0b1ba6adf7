// The session is the run's own (issue 35): nothing another process of the worker's user can reach writes into it,
// a leftover of an earlier run included. A real sshd whose sessions run as an ordinary user, the real CLI, and a
// leftover (test/fixtures/hostile/leftover.pl) that watches /proc for the next session and opens every pipe of it
// it can.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { cliLine, sparehand } from '../helpers/cli.js';
import { sharedTempDir, tempDir, tool } from '../helpers/context.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { gitProject, until } from '../helpers/project.js';
import { startSshd, terminalsWork, workerUser } from '../helpers/sshd.js';
import { sharedWorker, workerHome } from '../helpers/worker-env.js';

const shared = sharedWorker();
const run = (proj: string, cmd: string) => sparehand(['run', '--', cmd], { env: shared.wh.env, cwd: proj });
const read = (p: string) => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
};

describe('a leftover of an earlier run cannot get into the next session', () => {
  it('one that opens every pipe of each new process of the user: the next run says its own output and status', async () => {
    const proj = gitProject({ 'leftover.pl': readFileSync(join(FIXTURES, 'hostile', 'leftover.pl'), 'utf8') });
    const logs = sharedTempDir('sparehand-leftover-');
    const log = join(logs, 'log');
    const mark = `next-run-${process.pid}`;
    const first = await run(
      proj,
      `setsid perl leftover.pl ${mark} ${log} ${shared.sshd.home} </dev/null >/dev/null 2>&1 & until [ -s ${log} ]; do sleep 0.05; done`,
    );
    expect(first.exitCode, first.stderr).toBe(0);
    expect(await until(() => read(log).startsWith('watching'))).toBe(true);
    const r = await run(proj, `sleep 1; echo real output; exit 3 # ${mark}`);
    expect(await until(() => read(log).endsWith('done\n'))).toBe(true);
    expect(r.stdout).not.toContain('FORGED');
    // It may still have opened the session's pipes in the moment the login shell holds them, before the program
    // made itself non-dumpable: then what it wrote is not sealed with the session's key, and the run says it
    // cannot be trusted (its fate unknown, or the command's own status with nothing brought back); never what it
    // wrote. (Its stop asked on the session's input is one it could have sent the command itself: 143.)
    if (read(log).includes('reached')) {
      expect([3, 143, 255], r.stderr).toContain(r.exitCode);
      expect(r.stderr).toContain('(a frame the worker program did not send (it has no seal))');
    } else {
      expect(r.stdout).toBe('real output\n');
      expect(r.exitCode, r.stderr).toBe(3);
      expect(r.stderr).toMatch(/ran on w0/);
    }
  });

  it('a refusal it forges once the command runs, the worker program then killed: --or-local never runs the command again here', async () => {
    const proj = gitProject({ 'leftover.pl': readFileSync(join(FIXTURES, 'hostile', 'leftover.pl'), 'utf8') });
    const logs = sharedTempDir('sparehand-leftover-');
    const log = join(logs, 'log');
    const ran = join(logs, 'ran');
    const mark = `next-run-${process.pid}-refuse`;
    const first = await run(
      proj,
      `setsid perl leftover.pl ${mark} ${log} ${shared.sshd.home} refuse </dev/null >/dev/null 2>&1 & until [ -s ${log} ]; do sleep 0.05; done`,
    );
    expect(first.exitCode, first.stderr).toBe(0);
    const r = await sparehand(['run', '--or-local', '--', `id -un >> ${ran}; sleep 2; exit 3 # ${mark}`], { env: shared.wh.env, cwd: proj });
    expect(await until(() => read(log).endsWith('done\n'))).toBe(true);
    // Where it ran: at most once, on the worker (as the worker's user; not at all when the leftover's stop came
    // first), never here (as this one).
    expect(['', workerUser()]).toContain(read(ran).trim());
    if (read(log).includes('reached')) {
      expect([3, 143, 255], r.stderr).toContain(r.exitCode);
      expect(r.stderr).toContain('(a frame the worker program did not send (it has no seal))');
    } else expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).not.toContain('running locally');
  });
});

describe('what the worker program starts never holds the session', () => {
  it("find (the walk) and the command: their input is not the session's, and no other descriptor of theirs is a pipe", async () => {
    const bin = tempDir('sparehand-find-fds-');
    const logs = sharedTempDir('sparehand-find-fds-log-');
    const log = join(logs, 'fds');
    // Each writes down what it was given (perl lists its own descriptors: all but 1 are what it was given).
    const fdsOf = (who: string) => `perl -e 'print map { "${who} " . (m{(\\d+)$})[0] . " " . (readlink($_) // "") . "\\n" } glob "/proc/self/fd/*"' >> ${log}`;
    // A find first on the worker's PATH that writes down what it was given, then is the real one.
    tool(bin, 'find', `${fdsOf('find')}\nexec /usr/bin/find "$@"`);
    const own = await startSshd({ path: `${bin}:/usr/local/bin:/usr/bin:/bin` });
    const home = workerHome([own]);
    try {
      const proj = gitProject({ 'a.txt': 'a\n' });
      const cmd = `${fdsOf('command')}; echo b > a.txt`;
      for (let i = 0; i < 2; i++) {
        const r = await sparehand(['run', '--', cmd], { env: home.env, cwd: proj });
        expect(r.exitCode, r.stderr).toBe(0);
      }
      const fds = read(log)
        .trim()
        .split('\n')
        .map((l) => l.split(' '));
      expect(fds.some(([who]) => who === 'find')).toBe(true);
      expect(fds.some(([who]) => who === 'command')).toBe(true);
      for (const [who, fd, what] of fds) {
        if (fd === '0') expect([who, fd, what]).toEqual([who, '0', '/dev/null']);
        else if (fd !== '1' && fd !== '2') expect([who, fd, what]).not.toEqual([who, fd, expect.stringMatching(/^(pipe|socket):/)]);
      }
    } finally {
      await home.close();
      await own.stop();
    }
  });
});

describe("a terminal run's results are the terminal session's", () => {
  it.runIf(terminalsWork())(
    'a command that puts a forged refusal in the results file, or cuts it before its start, and kills its worker program: --or-local never runs it again here',
    async () => {
      const cuts = {
        forged: `printf 'refused 6\\nforged' > ../0.results`,
        'cut before its start': `perl -e 'open(my $f, "+<", "../0.results") or die; local $/; truncate($f, index(<$f>, "phase "))'`,
      };
      for (const [how, cut] of Object.entries(cuts)) {
        const proj = gitProject({ 'a.txt': 'a\n' });
        const ran = join(sharedTempDir('sparehand-tty-ran-'), 'ran');
        const r = await execa('script', ['-qec', cliLine(['run', '--or-local', '--', `id -un >> ${ran}; ${cut}; kill -9 $PPID`]), '/dev/null'], {
          cwd: proj,
          env: { ...shared.wh.env, TERM: 'xterm' },
          extendEnv: false,
          reject: false,
        });
        expect(read(ran).trim().split('\n'), `${how}: ${r.stdout}`).toEqual([workerUser()]);
        expect(r.exitCode, r.stdout).toBe(255);
        expect(r.stdout).toContain("the terminal session's results on the worker are not whole or not its own");
      }
    },
  );
});
