#!/usr/bin/env node
// Installs the real coding-agent CLIs that test/e2e/agents drives, at pinned versions, one npm prefix per
// tool, in a cache folder outside the repo. A tool already installed at its pinned version is skipped.
// A tool that cannot be installed (the machine, not sparehand) is recorded in its status file, so the
// suite marks that tool's test skipped with the reason instead of failing every other tool.
//
// Usage: node scripts/e2e-setup.js [tool ...]     (default: every tool)
// Cache: $SPAREHAND_E2E_CACHE, else ~/.cache/sparehand-e2e
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The versions confirmed working (each tool file's `confirmed`, the newest one, with what it `needs`), from the
// registry as built in dist/ (`npm run test:agents` builds first). `bin` is the command the suite runs.
const { allAgents } = await import(new URL('../dist/agents/index.js', import.meta.url).href);
// A tool with a hook inside it (install.inProcess) also gets the newest confirmed version that predates that hook, in
// `<id>@<version>`: the suite checks there that the settings hook still answers where the other cannot load.
const older = (a, b) => {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  return false;
};
const entry = (a, c) => ({ packages: [`${c.package}@${c.version}`, ...(c.needs ?? [])], bin: a.program.binary.name });
export const E2E_TOOLS = Object.fromEntries(
  allAgents()
    .filter((a) => a.facts.confirmed.length > 0 && a.program?.binary)
    .flatMap((a) => {
      const since = a.install.inProcess?.since;
      const before = since && a.facts.confirmed.filter((c) => older(c.version, since)).at(-1);
      return [[a.id, entry(a, a.facts.confirmed.at(-1))], ...(before ? [[`${a.id}@${before.version}`, entry(a, before)]] : [])];
    }),
);

// Where the cache lives: outside the repo so `npm ci` and git never see it.
export function e2eCacheDir(env = process.env) {
  return env.SPAREHAND_E2E_CACHE || join(env.HOME || homedir(), '.cache', 'sparehand-e2e');
}

// The status file the suite reads to know whether a tool is there or why not.
export function statusFile(cache, tool) {
  return join(cache, tool, 'e2e-status.json');
}

/**
 * The environment of one tool's npm install: npm's own config and cache as the caller's, but a HOME of its own inside
 * the tool's prefix, so that what a package's install script writes there stays there (Qoder CLI's postinstall adds a
 * PATH block to ~/.bashrc and ~/.profile and makes ~/.qoder).
 */
export function installEnv(dir, env = process.env) {
  const home = env.HOME || homedir();
  return {
    ...env,
    npm_config_userconfig: env.npm_config_userconfig || join(home, '.npmrc'),
    npm_config_cache: env.npm_config_cache || join(home, '.npm'),
    HOME: join(dir, 'install-home'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

// Runs npm with the machine's node; resolves with its exit code and the tail of its output.
function npm(args, cwd) {
  mkdirSync(join(cwd, 'install-home'), { recursive: true });
  return new Promise((resolve) => {
    const child = spawn('npm', args, {
      cwd,
      env: installEnv(cwd),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const keep = (chunk) => {
      out = (out + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => resolve({ code: 127, out: String(error) }));
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

// Installs one tool into its own prefix unless its status says it is already there at the pinned version.
async function installTool(cache, tool) {
  const spec = E2E_TOOLS[tool];
  const dir = join(cache, tool);
  const file = statusFile(cache, tool);
  if (existsSync(file)) {
    const status = JSON.parse(readFileSync(file, 'utf8'));
    const bin = join(dir, 'node_modules', '.bin', spec.bin);
    if (status.ok && JSON.stringify(status.packages) === JSON.stringify(spec.packages) && existsSync(bin)) {
      return { tool, ok: true, cached: true };
    }
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: `e2e-${tool}`, private: true })}\n`);
  const started = Date.now();
  const result = await npm(['install', '--no-save', '--no-package-lock', '--loglevel=error', ...spec.packages], dir);
  const seconds = Math.round((Date.now() - started) / 1000);
  const ok = result.code === 0 && existsSync(join(dir, 'node_modules', '.bin', spec.bin));
  const status = ok
    ? { ok, packages: spec.packages, seconds }
    : {
        ok,
        packages: spec.packages,
        seconds,
        reason: `npm install ${spec.packages.join(' ')} failed (exit ${result.code}): ${result.out.trim().split('\n').slice(-6).join(' | ')}`,
      };
  writeFileSync(file, `${JSON.stringify(status, null, 2)}\n`);
  return { tool, ...status };
}

// Installs the requested tools, two at a time (network-bound, and the machine has two cores).
async function main() {
  const cache = e2eCacheDir();
  const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(E2E_TOOLS);
  for (const tool of wanted) {
    if (!E2E_TOOLS[tool]) throw new Error(`unknown tool ${tool}; known: ${Object.keys(E2E_TOOLS).join(', ')}`);
  }
  mkdirSync(cache, { recursive: true });
  const queue = [...wanted];
  const worker = async () => {
    for (let tool = queue.shift(); tool; tool = queue.shift()) {
      const result = await installTool(cache, tool);
      const how = result.cached ? 'cached' : result.ok ? `installed in ${result.seconds}s` : `NOT installed: ${result.reason}`;
      console.log(`e2e-setup: ${tool}: ${how}`);
    }
  };
  await Promise.all([worker(), worker()]);
  console.log(`e2e-setup: cache ${cache}`);
}

// Run as a program (not imported): compare URLs, since a path with a space or non-ASCII letters is escaped in a URL.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  await main();
}
