import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { notBroughtBack, patternsRegex, upFilterArgs } from '../../lib/remote/sync-rules.js';

// Folders end in '/', as the tree watch tests them.
const PATHS = [
  'node_modules/', 'a/node_modules/', 'node_modules', '.ENV', 'src/.env.local', 'x.PEM', 'certs/tls.Key', 'target/debug/deps/',
  'target/debug/deps', 'target/debug/x', 'crates/a/target/release/incremental/', 'target/x86_64-unknown-linux-gnu/debug/.fingerprint/',
  '.docker/config.json', 'a/.docker/config.json', '.docker/Dockerfile', 'ID_RSA', 'src/identity.ts', 'id_ed25519.pub', 'README.md',
  '.sparehand/', 'pkg/.yarn/cache/', '.aws/', 'home/.SSH/', '.git/', 'src/.gitignore', 'dist/', '.git-credentials', 'key.ts',
];

describe('what never comes back, as one regular expression', () => {
  it('matches secrets in any case, dependency folders, caches and Cargo\'s build caches at any depth; nothing else', () => {
    const re = new RegExp(patternsRegex(notBroughtBack({})));
    expect(PATHS.filter((p) => re.test(p))).toEqual([
      'node_modules/', 'a/node_modules/', '.ENV', 'src/.env.local', 'x.PEM', 'certs/tls.Key', 'target/debug/deps/',
      'crates/a/target/release/incremental/', 'target/x86_64-unknown-linux-gnu/debug/.fingerprint/', '.docker/config.json',
      'a/.docker/config.json', 'ID_RSA', 'id_ed25519.pub', '.sparehand/', 'pkg/.yarn/cache/', '.aws/', 'home/.SSH/', '.git/',
      '.git-credentials',
    ]);
  });

  it('reads anchors, ** and classes as rsync does; the config adds patterns', () => {
    const re = new RegExp(patternsRegex(notBroughtBack({ sync: { exclude: ['/top-only', 'data/**/raw/', 'v[!0-9].txt'], keepOnWorker: ['build/tmp/'] } })));
    const cases = ['top-only', 'x/top-only', 'data/a/b/raw/', 'data/raw/', 'va.txt', 'v1.txt', 'build/tmp/', 'x/build/tmp/', 'build/tmp'];
    expect(cases.filter((p) => re.test(p))).toEqual(['top-only', 'data/a/b/raw/', 'va.txt', 'build/tmp/', 'x/build/tmp/']);
  });

  it('Perl reads the expression exactly as JavaScript does (the worker\'s tree watch runs it in Perl)', () => {
    const config = { sync: { exclude: ['/top-only', 'data/**/raw/', 'v[!0-9].txt', 'a+b(c).$x', 'sp ace/'] } };
    const source = patternsRegex(notBroughtBack(config));
    const paths = [...PATHS, 'top-only', 'data/a/raw/', 'va.txt', 'v1.txt', 'a+b(c).$x', 'sub/a+b(c).$x', 'aab(c).$x', 'sp ace/'];
    const perl = execFileSync('perl', ['-e', 'my $re = qr/$ARGV[0]/; shift; print join("\\0", grep { $_ =~ $re } @ARGV)', source, ...paths], { encoding: 'utf8' });
    const re = new RegExp(source);
    expect(perl.split('\0')).toEqual(paths.filter((p) => re.test(p)));
  });

  it('the way up: excludes first, then each folder\'s .gitignore; secrets sent only when the config says so', () => {
    expect(upFilterArgs({}).at(-1)).toBe('--filter=:- .gitignore');
    expect(upFilterArgs({})).toContain('--filter=- *.[pP][eE][mM]');
    expect(upFilterArgs({ sync: { sendSecrets: true } }).some((a) => a.includes('[pP][eE][mM]'))).toBe(false);
  });
});
