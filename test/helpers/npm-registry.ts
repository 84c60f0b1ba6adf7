// A tiny npm registry on 127.0.0.1 serving the real package tarballs vendored in test/fixtures/npm/ (tests reach
// no network but this machine's): the npm client installs from it as from registry.npmjs.org.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { join } from 'node:path';
import { execa } from 'execa';
import { tempDir } from './context.js';
import { FIXTURES } from './fixtures.js';

export interface NpmRegistry {
  /** `http://127.0.0.1:PORT/`: npm's `registry` setting. */
  url: string;
  /** How many tarballs were asked for. */
  downloads: () => number;
  stop: () => Promise<void>;
}

/** Starts the registry: every `NAME-VERSION.tgz` in test/fixtures/npm/ is one version of one package. */
export async function startNpmRegistry(): Promise<NpmRegistry> {
  const dir = join(FIXTURES, 'npm');
  const tarballs = new Map<string, Buffer>();
  for (const f of readdirSync(dir)) if (f.endsWith('.tgz')) tarballs.set(f, readFileSync(join(dir, f)));
  let downloads = 0;
  let url = '';
  const packument = (name: string) => {
    const versions: Record<string, unknown> = {};
    let latest = '';
    for (const [file, data] of tarballs) {
      const m = /^(.+)-(\d+\.\d+\.\d+)\.tgz$/.exec(file);
      if (!m || m[1] !== name) continue;
      latest = m[2] as string;
      versions[latest] = {
        name,
        version: latest,
        dist: {
          tarball: `${url}${name}/-/${file}`,
          shasum: createHash('sha1').update(data).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
        },
      };
    }
    return latest ? { name, 'dist-tags': { latest }, versions } : undefined;
  };
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] as string).slice(1);
    const tgz = /^[^/]+\/-\/([^/]+\.tgz)$/.exec(path);
    const body = tgz ? tarballs.get(tgz[1] as string) : packument(path);
    if (body === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    if (tgz) downloads++;
    res.writeHead(200, { 'content-type': tgz ? 'application/octet-stream' : 'application/json' }).end(Buffer.isBuffer(body) ? body : JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/`;
  return { url, downloads: () => downloads, stop: () => new Promise((r) => server.close(() => r())) };
}

/** A Node project that needs `ms` (from `registry`), its tests under node:test, installed here with `npm install ARGS`. */
export async function msProject(registry: NpmRegistry, gitignore: string, installArgs: readonly string[]): Promise<string> {
  const dir = tempDir('sparehand-deps-');
  const w = (p: string, s: string) => {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), s);
  };
  w(
    'package.json',
    JSON.stringify({ name: 'uses-ms', version: '1.0.0', private: true, scripts: { test: 'node --test test/' }, dependencies: { ms: '^2.1.3' } }),
  );
  w(
    'test/ms.test.js',
    "const test = require('node:test');\nconst assert = require('node:assert');\nconst ms = require('ms');\ntest('ms', () => assert.strictEqual(ms('2s'), 2000));\n",
  );
  w('.gitignore', gitignore);
  execFileSync('git', ['init', '-q'], { cwd: dir });
  // (Not execFileSync: the registry answers from this process.)
  await execa('npm', ['install', '--no-audit', '--no-fund', ...installArgs], {
    cwd: dir,
    env: { npm_config_registry: registry.url, npm_config_cache: `${dir}-npm-cache`, npm_config_update_notifier: 'false' },
  });
  return dir;
}
