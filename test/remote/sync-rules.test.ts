import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from '../helpers/context.js';
import { describe, expect, it } from 'vitest';
import { notBroughtBack, skipArgument, skipMatcher, skipRules, upFilterArgs } from '../../lib/remote/sync-rules.js';
import { runWorker, workerFolder } from '../helpers/local-worker.js';

// Folders end in '/', as the tree watch tests them.
const PATHS = [
  'node_modules/',
  'a/node_modules/',
  'node_modules',
  '.ENV',
  'src/.env.local',
  'x.PEM',
  'certs/tls.Key',
  'target/debug/deps/',
  'target/debug/deps',
  'target/debug/x',
  'crates/a/target/release/incremental/',
  'target/x86_64-unknown-linux-gnu/debug/.fingerprint/',
  '.docker/config.json',
  'a/.docker/config.json',
  '.docker/Dockerfile',
  'ID_RSA',
  'src/identity.ts',
  'id_ed25519.pub',
  'README.md',
  '.sparehand/',
  'pkg/.yarn/cache/',
  '.aws/',
  'home/.SSH/',
  '.git/',
  'src/.gitignore',
  'dist/',
  '.git-credentials',
  'key.ts',
];

describe('what never comes back, as regular expressions', () => {
  it("matches secrets in any case, dependency folders, caches and Cargo's build caches at any depth; nothing else", () => {
    const skipped = skipMatcher(skipRules(notBroughtBack({})));
    expect(PATHS.filter(skipped)).toEqual([
      'node_modules/',
      'a/node_modules/',
      '.ENV',
      'src/.env.local',
      'x.PEM',
      'certs/tls.Key',
      'target/debug/deps/',
      'crates/a/target/release/incremental/',
      'target/x86_64-unknown-linux-gnu/debug/.fingerprint/',
      '.docker/config.json',
      'a/.docker/config.json',
      'ID_RSA',
      'id_ed25519.pub',
      '.sparehand/',
      'pkg/.yarn/cache/',
      '.aws/',
      'home/.SSH/',
      '.git/',
      '.git-credentials',
    ]);
  });

  it('reads anchors, ** and classes as rsync does; the config adds patterns', () => {
    const skipped = skipMatcher(
      skipRules(notBroughtBack({ sync: { exclude: ['/top-only', 'data/**/raw/', 'v[!0-9].txt', 'q**z'], keepOnWorker: ['build/tmp/'] } })),
    );
    const cases = ['top-only', 'x/top-only', 'data/a/b/raw/', 'data/raw/', 'va.txt', 'v1.txt', 'build/tmp/', 'x/build/tmp/', 'build/tmp', 'q/a/z', 'aq/z'];
    expect(cases.filter(skipped)).toEqual(['top-only', 'data/a/b/raw/', 'va.txt', 'build/tmp/', 'x/build/tmp/', 'q/a/z']);
  });

  it("the worker's report (Perl) skips exactly what the JavaScript matcher skips", async () => {
    const config = { sync: { exclude: ['/top-only', 'data/**/raw/', 'v[!0-9].txt', 'a+b(c).$x', 'sp ace/'] } };
    const rules = skipRules(notBroughtBack(config));
    const files = [
      'README.md',
      '.ENV',
      'src/.env.local',
      'x.PEM',
      'certs/tls.Key',
      'target/debug/x',
      'a/.docker/config.json',
      '.docker/Dockerfile',
      'ID_RSA',
      'src/identity.ts',
      'id_ed25519.pub',
      '.git-credentials',
      'key.ts',
      'top-only',
      'x/top-only',
      'va.txt',
      'v1.txt',
      'a+b(c).$x',
      'sub/a+b(c).$x',
      'aab(c).$x',
    ];
    const folders = [
      'node_modules',
      'a/node_modules',
      'target/debug/deps',
      'target/release',
      'crates/a/target/release/incremental',
      '.sparehand',
      'pkg/.yarn/cache',
      '.aws',
      'home/.SSH',
      '.git',
      'dist',
      'data/a/raw',
      'sp ace',
    ];
    const dir = tempDir();
    for (const f of folders) mkdirSync(join(dir, f), { recursive: true });
    for (const f of files) {
      mkdirSync(dirname(join(dir, f)), { recursive: true });
      writeFileSync(join(dir, f), 'x');
    }
    // The command copies it all in: everything the watch walks is reported as created, what it skipped is not.
    const w = workerFolder();
    const answer = await runWorker(w, { command: `cp -a '${dir}/.' .`, skip: skipArgument(rules) });
    expect(answer.report.broken, answer.stderr).toBeUndefined();
    const reported = answer.report.changes.map((c) => (c.type === 'd' ? `${c.path}/` : c.path));
    // What JavaScript skips: a path skipped itself, or under a skipped folder.
    const skipped = skipMatcher(rules);
    const parents = (p: string) =>
      p
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => `${parts.slice(0, i + 1).join('/')}/`);
    const everything = [...files, ...folders.map((f) => `${f}/`)];
    const all = [...new Set([...everything, ...everything.flatMap(parents)])];
    const expected = all.filter((p) => !skipped(p) && !parents(p).some(skipped)).sort();
    expect(reported.sort()).toEqual(expected);
  });

  it('the way up sends the tracked files the secret list names: each included first, a folder the list names with its other entries hidden', () => {
    const args = upFilterArgs({}, '/tmp/ignored', ['/.npmrc'], ['tests/.env', '.kube/config', 'a[1].pem']);
    expect(args.slice(0, 6)).toEqual([
      '--filter=+ /tests/.env',
      '--filter=+ /.kube/config',
      '--filter=+ /a\\[1].pem',
      '--filter=+ /.kube/',
      '--filter=H /.kube/*',
      '--filter=H /.npmrc',
    ]);
    expect(upFilterArgs({ sync: { sendSecrets: true } }, undefined, [], ['tests/.env']).some((a) => a.startsWith('--filter=+'))).toBe(false);
  });

  it("the way up: secrets hidden (so the copy's are deleted), then what stays on the worker, then what git ignores here", () => {
    const args = upFilterArgs({}, '/tmp/ignored', ['/.yarnrc.yml']);
    expect(args.slice(-2)).toEqual(['--from0', '--exclude-from=/tmp/ignored']);
    expect(args).toContain('--filter=H *.[pP][eE][mM]');
    expect(args).toContain('--filter=H /.yarnrc.yml');
    expect(args).toContain('--filter=- node_modules/');
    expect(args).toContain('--filter=- .git');
    expect(args.findIndex((a) => a.startsWith('--filter=-'))).toBeGreaterThan(args.findLastIndex((a) => a.startsWith('--filter=H')));
    expect(args.some((a) => a.includes('.gitignore'))).toBe(false);
    expect(upFilterArgs({ sync: { sendSecrets: true } }, undefined, ['/.yarnrc.yml']).some((a) => a.startsWith('--filter=H'))).toBe(false);
  });
});
