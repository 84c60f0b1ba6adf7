import { describe, expect, it } from 'vitest';
import { depsPlan } from '../../lib/run/deps.js';
import { gitProject } from '../helpers/project.js';

describe('what the worker installs', () => {
  it('per ecosystem, the file nearest to the working folder on the way up to the root', () => {
    const proj = gitProject({
      'package-lock.json': '{}',
      'pnpm-lock.yaml': 'x',
      'packages/web/package-lock.json': '{}',
      'py/requirements.txt': 'a\n',
      'py/requirements-dev.txt': 'b\n',
      'Gemfile.lock': 'g',
      'svc/uv.lock': 'u',
      'svc/requirements.txt': 'ignored: uv.lock wins',
    });
    const at = (cwd: string) => depsPlan(proj, `${proj}/${cwd}`).map((d) => `${d.dir}: ${d.command}`);
    expect(at('.')).toEqual(['.: npm ci --no-audit --no-fund', '.: bundle install']);
    expect(at('packages/web/src')).toEqual(['packages/web: npm ci --no-audit --no-fund', '.: bundle install']);
    expect(at('py')).toEqual([
      'py: python3 -m venv .venv && PIP_DISABLE_PIP_VERSION_CHECK=1 .venv/bin/python -m pip install --quiet -r requirements-dev.txt -r requirements.txt',
      '.: npm ci --no-audit --no-fund',
      '.: bundle install',
    ]);
    expect(at('svc')).toEqual(['svc: uv sync --frozen', '.: npm ci --no-audit --no-fund', '.: bundle install']);
  });

  it('the hash follows the file and the command', () => {
    const a = gitProject({ 'uv.lock': 'v1' });
    const b = gitProject({ 'uv.lock': 'v2' });
    const c = gitProject({ 'uv.lock': 'v1' });
    const [ha, hb, hc] = [a, b, c].map((p) => depsPlan(p)[0]?.hash);
    expect(ha).not.toBe(hb);
    expect(ha).toBe(hc);
  });

  it('no lock file: the nearest package.json that names dependencies, with its packageManager, writing no lock file', () => {
    const proj = gitProject({
      'package.json': JSON.stringify({ name: 'root', dependencies: { ms: '^2' } }),
      'web/package.json': JSON.stringify({ name: 'web', packageManager: 'pnpm@9.1.0', devDependencies: { ms: '^2' } }),
      'bare/package.json': JSON.stringify({ name: 'bare', scripts: { test: 'true' } }),
    });
    const at = (cwd: string) => depsPlan(proj, `${proj}/${cwd}`).map((d) => `${d.dir}: ${d.command} [${d.files.join(',')}] ${d.note ?? ''}`);
    expect(at('.')).toEqual([
      '.: npm install --no-package-lock --no-audit --no-fund [package.json] no lock file: from package.json, so versions may differ from those here',
    ]);
    expect(at('web')[0]).toMatch(/^web: pnpm install --no-lockfile \[package\.json\] no lock file/);
    expect(at('bare')[0]).toMatch(/^\.: npm install --no-package-lock/);
    // A lock file anywhere on the way up wins.
    const locked = gitProject({ 'package-lock.json': '{}', 'web/package.json': JSON.stringify({ dependencies: { ms: '^2' } }) });
    expect(depsPlan(locked, `${locked}/web`).map((d) => d.command)).toEqual(['npm ci --no-audit --no-fund']);
  });
});
