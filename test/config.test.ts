// The config file as users leave it: unreadable, not a file, huge, with fields sparehand does not know, or with
// values of the wrong type or range.
import { chmodSync, cpSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, sparehand } from './helpers/cli.js';
import { homeWith, tempDir } from './helpers/context.js';

describe('config: what the file is', () => {
  it.each([
    ['/dev/zero (would read forever)', '/dev/zero', 'is not a regular file'],
    ['a folder', '/tmp', 'is not a regular file'],
  ])('refuses %s at once, naming the file', async (_what, path, message) => {
    const t0 = performance.now();
    const r = await sparehand(['worker', 'list'], { env: { ...homeWith(undefined).env, SPAREHAND_CONFIG: path } });
    expect([r.exitCode, r.stderr]).toEqual([1, expect.stringContaining(`sparehand: ${path} ${message}`)]);
    expect(r.stderr).toContain('SPAREHAND_CONFIG');
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('refuses a FIFO without waiting for a writer', async () => {
    const h = homeWith(undefined);
    const fifo = join(h.home, 'config.fifo');
    execFileSync('mkfifo', [fifo]);
    const r = await sparehand(['worker', 'list'], { env: { ...h.env, SPAREHAND_CONFIG: fifo } });
    expect([r.exitCode, r.stderr]).toEqual([1, expect.stringContaining(`${fifo} is not a regular file`)]);
    // A run says so first, and goes on with the built-in defaults (lib/config-kept.ts).
    const run = await sparehand(['run', '--or-local', '--', 'true'], { env: { ...h.env, SPAREHAND_CONFIG: fifo } });
    expect([run.exitCode, run.stderr.split('\n')[0]]).toEqual([
      0,
      `sparehand: ${fifo} is not a regular file; using the built-in defaults (no workers) until it is fixed`,
    ]);
  });

  it('refuses a file over 1 MiB, without reading it', async () => {
    const text = `{"workers": [], "pad": "${'x'.repeat(1024 * 1024)}"}`;
    const h = homeWith(text);
    const r = await sparehand(['worker', 'list'], { env: h.env });
    expect(r.stderr).toContain(`${h.file} is ${text.length} bytes; a config file is at most 1048576 bytes`);
  });

  it.runIf(process.getuid?.() === 0)('an unreadable file: the error says how to fix it', async () => {
    // As root every file is readable: run sparehand as nobody, with a file only root may read.
    const h = homeWith({ workers: [] });
    chmodSync(join(h.home), 0o755);
    chmodSync(h.file, 0o600);
    for (const d of [join(h.home, '.config'), join(h.home, '.config', 'sparehand')]) chmodSync(d, 0o755);
    // The clone may sit in a folder only root may enter (CI's mktemp -d): nobody runs a copy of the built CLI.
    const copy = tempDir('sparehand-cli-');
    chmodSync(copy, 0o755);
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(BIN, '..', '..', part), join(copy, part), { recursive: true });
    const { execa } = await import('execa');
    const r = await execa(process.execPath, [join(copy, 'bin', 'sparehand.js'), 'worker', 'list'], {
      env: h.env,
      extendEnv: false,
      reject: false,
      uid: 65534,
      gid: 65534,
    });
    expect(r.stderr).toContain(`sparehand: cannot read ${h.file}: EACCES`);
    expect(r.stderr).toContain(`let your user read it (\`chmod u+r ${h.file}\`)`);
  });
});

describe('config: values', () => {
  it('names the type and range expected, and what was found', async () => {
    const h = homeWith({ workers: [{ name: 'w', destination: 'h', port: '22422' }] });
    const r = await sparehand(['worker', 'list'], { env: h.env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`sparehand: ${h.file}: workers.0.port: a whole number from 1 to 65535, got "22422" (text)`);
    expect(r.stderr).toContain('sparehand: the fields are in `sparehand help config`');
  });

  it.each([
    [['--slots', '0'], 'slots: a whole number from 1 to 256, got 0'],
    [['--port', '99999'], 'port: a whole number from 1 to 65535, got 99999'],
    [['--port', '22.5'], "argument '22.5' is invalid. expected a whole number"],
  ])('worker add %j: %s (a usage error: 2)', async (args, message) => {
    const h = homeWith(undefined);
    const r = await sparehand(['worker', 'add', 'w', 'h', ...args], { env: h.env });
    expect([r.exitCode, r.stderr]).toEqual([2, expect.stringContaining(message)]);
  });
});

describe('config: fields sparehand does not know', () => {
  const doc = {
    myNote: 'the build box is in the cupboard',
    workers: [{ name: 'a', destination: 'me@a', rack: 3 }],
    sync: { exclud: ['*.log'], exclude: ['tmp/'] },
  };

  it('are kept when worker add and worker remove rewrite the file', async () => {
    const h = homeWith(doc);
    expect((await sparehand(['worker', 'add', 'b', 'me@b', '--slots', '3'], { env: h.env })).exitCode).toBe(0);
    expect((await sparehand(['worker', 'add', 'a', 'me@a2'], { env: h.env })).exitCode).toBe(0);
    expect(JSON.parse(readFileSync(h.file, 'utf8'))).toEqual({
      ...doc,
      workers: [
        { name: 'a', destination: 'me@a2', rack: 3 },
        { name: 'b', destination: 'me@b', slots: 3 },
      ],
    });
    expect((await sparehand(['worker', 'remove', 'b'], { env: h.env })).exitCode).toBe(0);
    expect(JSON.parse(readFileSync(h.file, 'utf8'))).toEqual({ ...doc, workers: [{ name: 'a', destination: 'me@a2', rack: 3 }] });
  });

  it('are named in one warning line by other commands, and listed by doctor', async () => {
    const h = homeWith(doc);
    const r = await sparehand(['worker', 'list'], { env: h.env });
    expect(r.stderr.split('\n').filter((l) => l.includes('unknown'))).toEqual([
      `sparehand: ${h.file}: unknown fields myNote, workers.0.rack, sync.exclud (ignored; the fields are in \`sparehand help config\`)`,
    ]);
    const d = await sparehand(['doctor', '--json'], { env: h.env });
    expect(JSON.parse(d.stdout).checks.find((c: { name: string }) => c.name === 'config').detail).toBe(
      '1 worker configured; unknown fields (ignored): myNote, workers.0.rack, sync.exclud',
    );
  });
});
