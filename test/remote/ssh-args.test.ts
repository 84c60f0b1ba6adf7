import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Config, Worker } from '../../lib/config.js';
import { rsyncUpArgs } from '../../lib/remote/rsync-args.js';
import { type RemoteJob, WRAPPER, remoteCommand } from '../../lib/remote/remote-script.js';
import { SLOT_CLAIM } from '../../lib/remote/worker-slots.js';
import { remotePath, rsyncPathMaking, rsyncRsh, rsyncWord, sshArgs, sshMasterArgs } from '../../lib/remote/ssh-args.js';

const worker: Worker = { name: 'box', destination: 'me@box.lan', port: 2222, identity: '/k/id key' };
const conn = { controlPath: '/run/user/1/sparehand/0123456789abcdef', knownHosts: '/h/.ssh/known_hosts' };

describe('ssh argument arrays', () => {
  it('sshArgs: batch mode, short timeout, the shared connection, host keys checked as ssh does', () => {
    expect(sshArgs(worker, conn, 'true')).toEqual([
      '-o', 'BatchMode=yes',
      '-o', 'ConnectTimeout=5',
      '-o', 'ControlMaster=no',
      '-o', 'ControlPath=/run/user/1/sparehand/0123456789abcdef',
      '-o', 'ControlPersist=10m',
      '-o', 'ServerAliveInterval=15',
      '-o', 'ServerAliveCountMax=3',
      '-o', 'UserKnownHostsFile=/h/.ssh/known_hosts',
      '-p', '2222',
      '-i', '/k/id key', '-o', 'IdentitiesOnly=yes',
      '-T', '--', 'me@box.lan', 'true',
    ]);
    expect(sshArgs({ name: 'b', destination: 'b' }, { controlPath: '/c' }, 'x', { tty: true }).slice(-5)).toEqual(['-tt', '-q', '--', 'b', 'x']);
    expect(sshMasterArgs({ name: 'b', destination: 'b' }, { controlPath: '/c', configFile: '/h/.ssh/config' })).toEqual([
      '-F', '/h/.ssh/config',
      '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', '-o', 'ControlMaster=yes', '-o', 'ControlPath=/c',
      '-o', 'ControlPersist=10m', '-o', 'ServerAliveInterval=15', '-o', 'ServerAliveCountMax=3',
      '-f', '-N', '--', 'b',
    ]);
  });

  it('never turns host key checking off', () => {
    const all = [...sshArgs(worker, conn, 'x'), ...sshMasterArgs(worker, conn), rsyncRsh(worker, conn)].join(' ');
    expect(all).not.toMatch(/StrictHostKeyChecking|UserKnownHostsFile=\/dev\/null/);
  });

  it('rsync -e words survive rsync\'s own splitting (checked with rsync itself)', () => {
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
    expect(rsyncPathMaking("/srv/my work/p-1/0")).toBe("mkdir -p -- '/srv/my work/p-1/0' && rsync");
  });
});

describe('rsync argument arrays', () => {
  const c = { controlPath: '/c' };
  const w: Worker = { name: 'b', destination: 'b' };
  const rsh = 'ssh -o BatchMode=yes -o ConnectTimeout=5 -o ControlMaster=no -o ControlPath=/c -o ControlPersist=10m -o ServerAliveInterval=15 -o ServerAliveCountMax=3';
  const fixed = (config: Config) => rsyncUpArgs(w, c, config, '/p', 'w/p/0').filter((a) => a.startsWith('--filter='));

  it('up: mirror with deletions, secrets/dependencies/caches excluded, .gitignore honoured', () => {
    const args = rsyncUpArgs(w, c, {}, '/p', 'w/p/0');
    expect(args.slice(0, 5)).toEqual(['-a', '--delete-delay', '--protect-args', '-e', rsh]);
    expect(args[5]).toBe('--rsync-path=mkdir -p -- w/p/0 && rsync');
    expect(args.slice(-2)).toEqual(['/p/', 'b:w/p/0/']);
    const filters = fixed({});
    expect(filters).toContain('--filter=- .[eE][nN][vV]');
    expect(filters).toContain('--filter=- .[eE][nN][vV].*');
    expect(filters).toContain('--filter=- [iI][dD]_*');
    expect(filters).toContain('--filter=- *.[pP][eE][mM]');
    expect(filters).toContain('--filter=- node_modules/');
    expect(filters).toContain('--filter=- .git/');
    expect(filters.at(-1)).toBe('--filter=:- .gitignore');
  });

  it('config: sendSecrets and copyDependencies drop those rules; sync.exclude adds rules', () => {
    const f = fixed({ sync: { sendSecrets: true, copyDependencies: true, exclude: ['*.log'] } });
    expect(f.some((x) => x.includes('[eE][nN][vV]') || x.includes('node_modules'))).toBe(false);
    expect(f).toContain('--filter=- *.log');
  });
});

describe('the one remote command string', () => {
  const job = (command: string, env: Record<string, string> = {}): RemoteJob => ({
    mode: 'pipe', dir: 'w', key: 'p', slots: 2, folder: 1, record: 'm\tme@m\t/p\tnpm test', rel: 'src', command, nonce: 'n1', skip: '(?:^|/)x$', watch: 'print 1',
    deps: [{ dir: 'py/a b', hash: 'h1', command: 'uv sync --frozen' }], venv: '.venv', programs: ['cargo', './gradlew'], env,
  });

  it('every argument reaches the worker\'s bash unchanged (property test against real bash)', () => {
    const text = fc.string({ unit: 'binary' }).map((x) => x.replace(/\0/g, ''));
    fc.assert(
      fc.property(fc.array(text, { maxLength: 4 }), text, (values, cmd) => {
        const env = Object.fromEntries(values.map((v, i) => [`V${i}`, v]));
        // The worker's login shell parses the line; here bash parses it and prints the words it got.
        const got = execFileSync('bash', ['-c', `printf '%s\\0' ${remoteCommand(job(cmd, env))}`]).toString();
        expect(got.split('\0').slice(0, -1)).toEqual([
          'env', '-u', 'SSH_CLIENT', '-u', 'SSH2_CLIENT', `SPAREHAND_CLAIM=${SLOT_CLAIM}`, 'SPAREHAND_RECORD=m\tme@m\t/p\tnpm test',
          'bash', '-c', WRAPPER, 'sparehand', 'pipe', 'w', 'p', '2', '1', 'src', cmd, 'n1', '(?:^|/)x$', 'print 1',
          'py/a b\tpy%a b\th1\tuv sync --frozen', '.venv', 'cargo\n./gradlew', ...values.map((v, i) => `V${i}=${v}`),
        ]);
      }),
      { numRuns: 100 },
    );
  });
});
