// A tiny real Node project (package.json, lock file, node:test suite, a build script, one local dependency).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './context.js';

/** Makes the project in a fresh git repository and installs it here (offline: the dependency is a local folder). */
export function nodeProject(): string {
  const dir = tempDir('sparehand-proj-');
  const w = (p: string, s: string) => {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), s);
  };
  w('deps/tiny/package.json', JSON.stringify({ name: 'tiny', version: '1.0.0', main: 'index.js' }));
  w('deps/tiny/index.js', 'exports.double = (n) => n * 2;\n');
  w(
    'package.json',
    JSON.stringify({
      name: 'demo',
      version: '1.0.0',
      private: true,
      scripts: { test: 'node --test test/', build: 'node build.js' },
      dependencies: { tiny: 'file:tiny-1.0.0.tgz' },
    }),
  );
  w('src/math.js', "const { double } = require('tiny');\nexports.quad = (n) => double(double(n));\n");
  w(
    'test/math.test.js',
    "const test = require('node:test');\nconst assert = require('node:assert');\nconst { quad } = require('../src/math.js');\ntest('quad', () => assert.strictEqual(quad(2), 8));\n",
  );
  w(
    'build.js',
    "const fs = require('fs');\nfs.mkdirSync('dist', { recursive: true });\nfs.writeFileSync('dist/out.js', fs.readFileSync('src/math.js', 'utf8').toUpperCase());\n",
  );
  w('.gitignore', 'node_modules/\ndist/\n*.log\n');
  w('.env', 'SECRET=hunter2\n');
  execFileSync('git', ['init', '-q'], { cwd: dir });
  const npm = (args: string[]) =>
    execFileSync('npm', [...args, '--no-audit', '--no-fund', '--offline'], {
      cwd: dir,
      env: { ...process.env, npm_config_update_notifier: 'false' },
      stdio: 'ignore',
    });
  npm(['pack', './deps/tiny']);
  npm(['install']);
  writeFileSync(join(dir, 'node_modules', 'LOCAL_ONLY'), 'must not be sent\n');
  return dir;
}
