// Which rsync each side has, what the way up asks of the pair, and which side a failure names.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { type RsyncInfo, WORKER_RSYNC_PROBE, parseRsyncVersion, pickWorkerRsync, rsyncNotes, upPlan } from '../../lib/remote/rsync-flavour.js';
import { syncFailure } from '../../lib/send/rsync-up.js';
import { ignoredPatterns } from '../../lib/remote/sync-rules.js';
import { openrsyncBin } from '../helpers/rsyncs.js';

const gnu3: RsyncInfo = { flavour: 'gnu', version: '3.2.7', protocol: 31, path: '/usr/bin/rsync' };
const gnu269: RsyncInfo = { flavour: 'gnu', version: '2.6.9', protocol: 29, path: '/usr/bin/rsync' };
const open: RsyncInfo = { flavour: 'openrsync', version: '2.6.9', protocol: 29, path: '/usr/bin/rsync' };

describe('rsync --version, from each kind', () => {
  it("GNU rsync 3 and upstream openrsync (read from the real programs), rsync 2.6.9 and Apple's openrsync (as they print it)", () => {
    const real = execFileSync('sh', ['-c', 'rsync --version 2>&1']).toString();
    expect(parseRsyncVersion(real, '/usr/bin/rsync')).toMatchObject({ flavour: 'gnu', version: expect.stringMatching(/^3\.\d+\.\d+/), path: '/usr/bin/rsync' });
    const old = 'rsync  version 2.6.9  protocol version 29\nCopyright (C) 1996-2006 by Andrew Tridgell, Wayne Davison, and others.\n';
    expect(parseRsyncVersion(old, '/usr/bin/rsync')).toEqual(gnu269);
    const upstream = execFileSync('sh', ['-c', `${openrsyncBin()}/rsync --version 2>&1`]).toString();
    expect(parseRsyncVersion(upstream, 'rsync')).toEqual({ flavour: 'openrsync', version: null, protocol: 27, path: 'rsync' });
    expect(parseRsyncVersion('openrsync: protocol version 29\nrsync version 2.6.9 compatible\n', '/usr/bin/rsync')).toEqual(open);
    expect(parseRsyncVersion('something else 1.0\n', 'x')).toEqual({ flavour: 'unknown', version: null, protocol: null, path: 'x' });
    expect(parseRsyncVersion('', 'x')).toBeUndefined();
  });

  it('on a worker: the first GNU rsync 3 among its PATH, Homebrew and MacPorts, else the one on its PATH', () => {
    const out = (...found: [string, string][]) => found.map(([p, v]) => `rsync-path=${p}\n${v}rsync-end\n`).join('');
    const brew = 'rsync  version 3.4.1  protocol version 32\nCopyright\n';
    const apple = 'openrsync: protocol version 29\nrsync version 2.6.9 compatible\n';
    expect(pickWorkerRsync(out(['rsync', apple], ['/opt/homebrew/bin/rsync', brew]))).toEqual({
      flavour: 'gnu',
      version: '3.4.1',
      protocol: 32,
      path: '/opt/homebrew/bin/rsync',
    });
    expect(pickWorkerRsync(out(['rsync', apple]))).toEqual({ ...open, path: 'rsync' });
    expect(pickWorkerRsync('')).toBeUndefined();
    // The probe itself, run by sh here: every rsync it finds, with its version lines.
    expect(pickWorkerRsync(execFileSync('sh', ['-c', WORKER_RSYNC_PROBE]).toString())).toMatchObject({ flavour: 'gnu', path: 'rsync' });
  });
});

describe('what the way up asks of each pair', () => {
  it('--delete-delay only where both have it, quoted -e only for GNU here', () => {
    expect(upPlan(gnu3, gnu3)).toEqual({ del: '--delete-delay', rsh: 'quoted' });
    expect(upPlan(open, gnu3)).toEqual({ del: '--delete-delay', rsh: 'blanks' });
    expect(upPlan(gnu3, open)).toEqual({ del: '--delete-delay', rsh: 'quoted' });
    expect(upPlan(gnu269, gnu3)).toEqual({ del: '--delete-after', rsh: 'quoted' });
    expect(upPlan(open, gnu269)).toEqual({ del: '--delete-after', rsh: 'blanks' });
    expect(upPlan({ ...gnu3, flavour: 'unknown', version: null }, gnu3)).toEqual({ del: '--delete-after', rsh: 'blanks' });
  });

  it('what an rsync short of GNU rsync 3 changes, with the fix on the right side', () => {
    expect(rsyncNotes(gnu3, 'here')).toEqual([]);
    expect(rsyncNotes(gnu269, 'on the worker')).toEqual([
      'rsync on the worker is 2.6.9: runs work, deleting after the transfer (one more pass). For rsync 3: `brew install rsync` on the worker (sparehand then finds /opt/homebrew/bin/rsync by itself)',
    ]);
    expect(rsyncNotes(open, 'here')).toEqual([
      'rsync here is openrsync (protocol 29): runs work the same (git lists what .gitignore keeps out, whichever rsync is there). GNU rsync is the one sparehand is tested with most: `brew install rsync`',
    ]);
  });

  it("git's ignored paths become anchored, NUL-terminated patterns; wildcards in a name are escaped", () => {
    expect(ignoredPatterns('dist/\0a.log\0sub/b c.log\0x[1]*.txt\0back\\slash\0')).toBe('/dist/\0/a.log\0/sub/b c.log\0/x\\[1]\\*.txt\0/back\\slash\0');
    expect(ignoredPatterns('')).toBe('');
    // A lock file the worker installs from is sent whatever .gitignore says.
    expect(ignoredPatterns('package-lock.json\0dist/\0web/yarn.lock\0', ['package-lock.json', 'web/yarn.lock'])).toBe('/dist/\0');
  });
});

describe('a failed sync names the side with the problem, without a usage text', () => {
  const w = { name: 'w1', destination: 'h' };
  const usage = 'usage: openrsync [-DFP]\n\t[--8-bit-output, -8]\n\t[--whole-file, -W]\n\tsource ... directory\n';

  it("an option refused here (the issue's first report), and one refused by the worker's rsync", () => {
    const hereErr = syncFailure(
      w,
      { here: { ...open, path: '/usr/bin/rsync' }, there: gnu3 },
      { code: 1, stderr: `/usr/bin/rsync: unrecognized option '--protect-args'\n${usage}` },
    );
    expect(hereErr.message).toBe('sending the project to worker "w1" failed (rsync exit 1): /usr/bin/rsync: unrecognized option \'--protect-args\'');
    expect(hereErr.hint).toBe('the problem is here (rsync here: openrsync (protocol 29) (/usr/bin/rsync); on the worker: rsync 3.2.7 (/usr/bin/rsync))');
    const there = syncFailure(
      w,
      { here: gnu3, there: { ...open, path: 'rsync' } },
      {
        code: 12,
        stderr: `/usr/bin/openrsync: invalid option -- 's'\n${usage}rsync: connection unexpectedly closed (0 bytes received so far) [sender]\nrsync error: error in rsync protocol data stream (code 12) at io.c(232) [sender=3.2.7]\n`,
      },
    );
    expect(there.message).toBe(
      'sending the project to worker "w1" failed (rsync exit 12): /usr/bin/openrsync: invalid option -- \'s\' / rsync: connection unexpectedly closed (0 bytes received so far) [sender]',
    );
    expect(there.hint).toMatch(/^the problem is on the worker \(/);
    const gone = syncFailure(
      w,
      { here: gnu3, there: { ...gnu3, path: '/opt/homebrew/bin/rsync' } },
      { code: 127, stderr: 'zsh:1: no such file or directory: /opt/homebrew/bin/rsync\n' },
    );
    expect(gone.message).toBe('worker "w1" has no rsync at /opt/homebrew/bin/rsync any more (zsh:1: no such file or directory: /opt/homebrew/bin/rsync)');
  });
});
