import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Config, SshWorker as Worker } from '../../lib/config.js';
import { rsyncUpArgs } from '../../lib/send/rsync-args.js';
import { BOOT, bootCommand } from '../../lib/remote/worker/program.js';
import { remotePath, rsyncPathMaking, rsyncRsh, rsyncRshBlanks, rsyncWord, sshArgs, sshMasterArgs, sshOptions } from '../../lib/remote/ssh-args.js';
import { tempDir, tool } from '../helpers/context.js';
import { openrsyncBin } from '../helpers/rsyncs.js';

const worker: Worker = { name: 'box', destination: 'me@box.lan', port: 2222, identity: '/k/id key' };
const conn = { controlPath: '/run/user/1/sparehand/0123456789abcdef', knownHosts: '/h/.ssh/known_hosts' };

describe('ssh argument arrays', () => {
  it('sshArgs: batch mode, short timeout, the shared connection, host keys checked as ssh does', () => {
    expect(sshArgs(worker, conn, 'true')).toEqual([
      '-o',
      'BatchMode=yes',
      '-o',
      'ConnectTimeout=5',
      '-o',
      'ControlMaster=no',
      '-o',
      'ControlPath=/run/user/1/sparehand/0123456789abcdef',
      '-o',
      'ControlPersist=10m',
      '-o',
      'ServerAliveInterval=15',
      '-o',
      'ServerAliveCountMax=3',
      '-o',
      'ForwardAgent=no',
      '-o',
      'ForwardX11=no',
      '-o',
      'ClearAllForwardings=yes',
      '-o',
      'UserKnownHostsFile=/h/.ssh/known_hosts',
      '-p',
      '2222',
      '-i',
      '/k/id key',
      '-o',
      'IdentitiesOnly=yes',
      '-T',
      '--',
      'me@box.lan',
      'true',
    ]);
    expect(sshArgs({ name: 'b', destination: 'b' }, { controlPath: '/c' }, 'x', { tty: true }).slice(-5)).toEqual(['-tt', '-q', '--', 'b', 'x']);
    expect(sshMasterArgs({ name: 'b', destination: 'b' }, { controlPath: '/c', configFile: '/h/.ssh/config' })).toEqual([
      '-F',
      '/h/.ssh/config',
      '-o',
      'BatchMode=yes',
      '-o',
      'ConnectTimeout=5',
      '-o',
      'ControlMaster=yes',
      '-o',
      'ControlPath=/c',
      '-o',
      'ControlPersist=10m',
      '-o',
      'ServerAliveInterval=15',
      '-o',
      'ServerAliveCountMax=3',
      '-o',
      'ForwardAgent=no',
      '-o',
      'ForwardX11=no',
      '-o',
      'ClearAllForwardings=yes',
      '-f',
      '-N',
      '--',
      'b',
    ]);
  });

  it('never turns host key checking off', () => {
    const all = [...sshArgs(worker, conn, 'x'), ...sshMasterArgs(worker, conn), rsyncRsh(worker, conn)].join(' ');
    expect(all).not.toMatch(/StrictHostKeyChecking|UserKnownHostsFile=\/dev\/null/);
  });

  it("rsync -e words survive rsync's own splitting (checked with rsync itself)", () => {
    expect(rsyncWord('ControlPath=/a/b')).toBe('ControlPath=/a/b');
    expect(rsyncWord('/k/id key')).toBe("'/k/id key'");
    expect(rsyncWord("it's")).toBe(`'it'"'"'s'`);
    // rsync runs the -e program with the words it split; bash prints them on stderr, then rsync fails harmlessly.
    const words = ['/k/id key', "it's", 'a"b', 'x\\y', 'plain', '$HOME'];
    const rsh = ['bash', '-c', 'printf "<%s>\\n" "$@" >&2', 'x', ...words].map(rsyncWord).join(' ');
    let err = '';
    try {
      execFileSync('rsync', ['-e', rsh, 'host:/nowhere', '/tmp/nowhere'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 5000 });
    } catch (e) {
      err = String((e as { stderr: Buffer }).stderr);
    }
    expect(err.split('\n').slice(0, words.length)).toEqual(words.map((w) => `<${w}>`));
  });

  it('remote paths: ~/ is the login folder; the destination folder is made in the same round trip', () => {
    expect(remotePath('~/.cache/sparehand/work')).toBe('.cache/sparehand/work');
    expect(remotePath('~')).toBe('.');
    expect(remotePath('/srv/work')).toBe('/srv/work');
    expect(rsyncPathMaking('/srv/my work/p-1/0')).toBe("mkdir -p -- '/srv/my work/p-1/0' && cd -- '/srv/my work/p-1/0' && rsync");
    expect(rsyncPathMaking('w/p/0', '/opt/homebrew/bin/rsync')).toBe('mkdir -p -- w/p/0 && cd -- w/p/0 && /opt/homebrew/bin/rsync');
  });

  it("--rsync-path: the folder and the program reach the worker's shell as single words (property test against real bash and dash)", () => {
    // Every rsync appends its server arguments and hands the line to ssh, which gives it to the worker's shell.
    const text = fc.string({ unit: 'binary', minLength: 1 }).map((x) => x.replace(/\0/g, '') || 'x');
    const spy = (name: string) => `${name}() { printf '%s\\0' ${name} "$@"; }`;
    fc.assert(
      fc.property(text, fc.constantFrom('rsync', '/opt/homebrew/bin/rsync', '/Users/me/my tools/rsync'), (dir, program) => {
        const line = `${rsyncPathMaking(dir, program)} --server -logDtpre.iLsfxCIvu --delete-delay . .`;
        for (const shell of ['bash', 'dash']) {
          // The program is run through a function named rsync: the word it was given is printed first.
          const got = execFileSync(shell, [
            '-c',
            `${spy('mkdir')}; ${spy('cd')}; ${spy('rsync')}; ${line.replace(rsyncPathMaking(dir, program), `${rsyncPathMaking(dir, 'rsync')}`)}`,
            'x',
          ]).toString();
          expect(got.split('\0').slice(0, -1)).toEqual([
            'mkdir',
            '-p',
            '--',
            dir,
            'cd',
            '--',
            dir,
            'rsync',
            '--server',
            '-logDtpre.iLsfxCIvu',
            '--delete-delay',
            '.',
            '.',
          ]);
          const word = execFileSync(shell, ['-c', `printf '%s\\0' ${rsyncPathMaking(dir, program).split(' && ').at(-1)}`]).toString();
          expect(word).toBe(`${program}\0`);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('openrsync splits -e on blanks only: the words are given as they are, or through SPAREHAND_RSH when one has a blank (checked with openrsync itself)', () => {
    const bin = openrsyncBin();
    const spaced: Worker = { name: 'box', destination: 'me@box.lan', port: 2222, identity: "/k/my key's" };
    expect(rsyncRshBlanks({ name: 'b', destination: 'b' }, { controlPath: '/c' })).toEqual({
      rsh: 'ssh -o BatchMode=yes -o ConnectTimeout=5 -o ControlMaster=no -o ControlPath=/c -o ControlPersist=10m -o ServerAliveInterval=15 -o ServerAliveCountMax=3 -o ForwardAgent=no -o ForwardX11=no -o ClearAllForwardings=yes',
      env: {},
    });
    const { rsh, env } = rsyncRshBlanks(spaced, { controlPath: '/run/x y/0123' });
    expect(rsh.split(' ')).toHaveLength(4);
    // openrsync runs "-e" as the remote shell: a fake ssh on PATH prints the words it got, then rsync fails harmlessly.
    const fake = tempDir('sparehand-fake-ssh-');
    tool(fake, 'ssh', 'printf "<%s>\\n" "$@" >&2\nexit 1');
    let err = '';
    try {
      execFileSync(join(bin, 'rsync'), ['-a', '-e', rsh, '--rsync-path=mkdir -p -- x && rsync', '/tmp/nowhere/', 'host:.'], {
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 5000,
        env: { PATH: `${fake}:${process.env.PATH}`, ...env },
      });
    } catch (e) {
      err = String((e as { stderr: Buffer }).stderr);
    }
    const words = err
      .split('\n')
      .filter((l) => l.startsWith('<'))
      .map((l) => l.slice(1, -1));
    const host = words.indexOf('host');
    expect(words.slice(0, host)).toEqual(sshOptions(spaced, { controlPath: '/run/x y/0123' }));
    expect(words.slice(host, host + 3)).toEqual(['host', 'mkdir -p -- x && rsync', '--server']);
  });
});

describe('rsync argument arrays', () => {
  const c = { controlPath: '/c' };
  const w: Worker = { name: 'b', destination: 'b' };
  const rsh =
    'ssh -o BatchMode=yes -o ConnectTimeout=5 -o ControlMaster=no -o ControlPath=/c -o ControlPersist=10m -o ServerAliveInterval=15 -o ServerAliveCountMax=3 -o ForwardAgent=no -o ForwardX11=no -o ClearAllForwardings=yes';
  const fixed = (config: Config) => rsyncUpArgs(w, c, config, '/p', 'w/p/0').args.filter((a) => a.startsWith('--filter='));

  it("up: mirror with deletions, secrets hidden, dependencies/caches excluded, what git ignores excluded; the worker's folder entered by --rsync-path", () => {
    const { args, env } = rsyncUpArgs(w, c, {}, '/p', 'w/p/0', { plan: { del: '--delete-delay', rsh: 'quoted' }, there: 'rsync', ignoredFile: '/tmp/i' });
    expect(args.slice(0, 4)).toEqual(['-a', '--delete-delay', '-e', rsh]);
    expect(args[4]).toBe('--rsync-path=mkdir -p -- w/p/0 && cd -- w/p/0 && rsync');
    expect(args.slice(-4)).toEqual(['--from0', '--exclude-from=/tmp/i', '/p/', 'b:.']);
    expect(env).toEqual({});
    const filters = fixed({});
    expect(filters).toContain('--filter=H .[eE][nN][vV]');
    expect(filters).toContain('--filter=H .[eE][nN][vV].*');
    expect(filters).toContain('--filter=H [iI][dD]_*');
    expect(filters).toContain('--filter=H *.[pP][eE][mM]');
    expect(filters).toContain('--filter=- node_modules/');
    expect(filters).toContain('--filter=- .git');
    expect(filters).toContain('--filter=- target/*/incremental/');
  });

  it('config: sendSecrets and copyDependencies drop those rules; sync.exclude and sync.keepOnWorker add rules', () => {
    const f = fixed({ sync: { sendSecrets: true, copyDependencies: true, exclude: ['*.log'], keepOnWorker: ['out/cache/'] } });
    expect(f.some((x) => x.includes('[eE][nN][vV]') || x.includes('node_modules'))).toBe(false);
    expect(f).toContain('--filter=- *.log');
    expect(f).toContain('--filter=- out/cache/');
  });

  it("with openrsync on a side: .gitignore as the list git makes here, --delete-after with rsync 2.6.9, the worker's rsync by its path", () => {
    const up = rsyncUpArgs(w, c, {}, '/p', 'w/p/0', {
      plan: { del: '--delete-after', rsh: 'blanks' },
      there: '/opt/homebrew/bin/rsync',
      ignoredFile: '/tmp/x/ignored',
    });
    expect(up.args.slice(0, 4)).toEqual(['-a', '--delete-after', '-e', rsh]);
    expect(up.args[4]).toBe('--rsync-path=mkdir -p -- w/p/0 && cd -- w/p/0 && /opt/homebrew/bin/rsync');
    expect(up.args.slice(-4)).toEqual(['--from0', '--exclude-from=/tmp/x/ignored', '/p/', 'b:.']);
    expect(up.args.some((a) => a.includes('.gitignore'))).toBe(false);
  });
});

describe('the one remote command string', () => {
  it('is the fixed bootstrap, the same words in every POSIX shell and in fish; no value of a run in it', () => {
    const expected = ['exec', 'perl', '-e', BOOT];
    for (const shell of ['bash', 'sh', 'dash', 'zsh', 'fish'].filter((x) => spawnSync(x, ['-c', 'true']).status === 0)) {
      const got = execFileSync(shell, ['-c', `printf '%s\\0' ${bootCommand()}`]).toString();
      expect(got.split('\0').slice(0, -1), shell).toEqual(expected);
    }
    expect(BOOT).not.toMatch(/['\\!\n]/);
    const file = execFileSync('bash', ['-c', `printf '%s\\0' ${bootCommand('/w/.jobs/ab12')}`]).toString();
    expect(file.split('\0').slice(0, -1)).toEqual([...expected, '/w/.jobs/ab12']);
  });
});

describe('ssh never forwards anything of this machine', () => {
  it('no agent, X11 or port forwarding whatever the config says; the agent only for a worker that asks for it', () => {
    expect(sshOptions(worker, conn).join(' ')).toContain('-o ForwardAgent=no -o ForwardX11=no -o ClearAllForwardings=yes');
    expect(sshOptions({ ...worker, forwardAgent: true }, conn).join(' ')).toContain('-o ForwardAgent=yes');
  });
});
