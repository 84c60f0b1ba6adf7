#!/usr/bin/env node
// The hook process's wall time against a bare Node start measured in the same run (interleaved, medians,
// ratios), for a heavy and a light payload. Run after `npm run build`: `node bench/hook.js [runs] [--against DIR]`.
// --against DIR: another built checkout (its bin/sparehand.js and dist/), measured in the same rounds, for a
// before/after in one run. The classifier's in-process throughput is bench/classify.js. Then the hooks that answer
// inside the tool's own process, per call, on the same payloads: Claude Code's mod (as built, against a stand-in of
// what Claude Code lends it, backed by this node's fs) and OpenCode's plugin (as built, as OpenCode loads it).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const at = argv.indexOf('--against');
const against = at >= 0 ? resolve(argv[at + 1] ?? '') : undefined;
const runs = Number(argv.find((a, i) => /^\d+$/.test(a) && (at < 0 || i !== at + 1)) ?? 25);
// The bounds the hook process must stay within (issue 38: issue 28's second round measured 1.26–1.35× and
// 1.04–1.14×, at this design's floor; a margin over them, as single runs move by a millisecond).
const GOALS = { heavy: 1.4, light: 1.15 };

// A home per build: each keeps its own V8 code cache (a build drops the cache files of another of the same name).
const homeFor = () => mkdtempSync(join(tmpdir(), 'sparehand-bench-'));
const payload = (home, command) =>
  JSON.stringify({
    session_id: 'bench',
    transcript_path: '/tmp/t.jsonl',
    cwd: home,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command, description: 'bench' },
  });

const builds = [['', fileURLToPath(new URL('../bin/sparehand.js', import.meta.url))]];
if (against) builds.push([' (against)', join(against, 'bin', 'sparehand.js')]);
const bare = homeFor();
const cases = { 'node -e 0': { args: ['-e', '0'], input: '', home: bare, goal: undefined } };
for (const [label, bin] of builds) {
  const hook = [bin, 'agent', 'hook', '--for', 'claude-code'];
  const home = homeFor();
  cases[`hook, heavy (npm test)${label}`] = { args: hook, input: payload(home, 'npm test'), home, goal: 'heavy' };
  cases[`hook, light (ls -la)${label}`] = { args: hook, input: payload(home, 'ls -la'), home, goal: 'light' };
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const loadBefore = load();
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
// CPU time of the finished children (Linux: /proc/self/stat's cutime + cstime, in clock ticks), per case: less moved
// than wall time by the other work on a loaded machine; summed over all runs, as a tick is ~10 ms.
const childTicks = () => {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[13]) + Number(f[14]);
  } catch {
    return undefined;
  }
};
const ticks = Object.fromEntries(Object.keys(cases).map((k) => [k, 0]));
for (let i = 0; i < runs + 2; i++) {
  // Interleaved, so machine noise hits every case alike; the first two rounds warm the file cache (and V8's code cache).
  for (const [name, c] of Object.entries(cases)) {
    const before = childTicks();
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, c.args, { input: c.input, env: { PATH: process.env.PATH, HOME: c.home } });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const after = childTicks();
    if (i >= 2 && before !== undefined && after !== undefined) ticks[name] += after - before;
    if (r.status !== 0) throw new Error(`${name} exited ${r.status}: ${r.stderr}`);
    if (c.goal === 'heavy' && !r.stdout.includes('run --or-local')) throw new Error(`${name} did not rewrite: ${r.stdout}`);
    if (c.goal === 'light' && r.stdout.length > 0) throw new Error(`${name} answered: ${r.stdout}`);
    if (i >= 2) times[name].push(ms);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(times['node -e 0']);
console.log(`hook start-up, median of ${runs} runs; load average ${loadBefore} before, ${load()} after`);
console.log(`bounds: heavy ≤ ${GOALS.heavy.toFixed(2)}×, light ≤ ${GOALS.light.toFixed(2)}× a bare node start`);
for (const [name, xs] of Object.entries(times)) {
  const ratio = median(xs) / base;
  const goal = cases[name].goal && GOALS[cases[name].goal];
  // The verdict on the ratio as printed (two decimals), so that the line never says "met" beside a number over it.
  const verdict = goal === undefined ? '' : Number(ratio.toFixed(2)) <= goal ? `   ≤ ${goal.toFixed(2)}×: met` : `   ≤ ${goal.toFixed(2)}×: NOT met`;
  const cpu = childTicks() === undefined ? '' : `   CPU ${(ticks[name] / ticks['node -e 0']).toFixed(2)}×`;
  console.log(`  ${name.padEnd(36)} ${median(xs).toFixed(1).padStart(7)} ms   ${ratio.toFixed(2)}×${verdict}${cpu}`);
}

// In-process: per call, after a warm-up (the first call of a session reads ahead what the later ones read at once).
const dist = (p) => pathToFileURL(fileURLToPath(new URL(`../dist/${p}`, import.meta.url))).href;
const { claudeMod } = await import(dist('agents/claude-mod.js'));
const { pluginSource } = await import(dist('agents/opencode-plugin.js'));
const { hookCommand } = await import(dist('install/hook-command.js'));
const { registerMod, dispatch, standInDollar } = await import(dist('claude-mod-stand-in.mjs'));
const CALLS = 2000;
// The median call (the mean moves with what else the machine runs).
const perCall = async (answer) => {
  for (let i = 0; i < 20; i++) await answer();
  const each = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = process.hrtime.bigint();
    await answer();
    each.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const sorted = [...each].sort((a, b) => a - b);
  return { median: median(each), p90: sorted[Math.floor(sorted.length * 0.9)] };
};
const inside = {};
{
  const home = homeFor();
  const hook = hookCommand('claude-code');
  for (const t of claudeMod.targets) {
    const path = t.path({ home, env: {} });
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, t.content(hook));
  }
  const mod = await registerMod(claudeMod.targets[0].path({ home, env: {} }));
  const $ = standInDollar({ env: { HOME: home, PATH: process.env.PATH }, cwd: home });
  for (const command of ['npm test', 'ls -la']) {
    const { tool_input, tool_name } = JSON.parse(payload(home, command));
    const e = { ...tool_input, tool: tool_name, tool_use_id: 'toolu_bench' };
    let ran;
    const answer = () => dispatch(mod, 'tool.call', $, e, (x) => ((ran = x), { result: {} }));
    inside[`mod, ${command === 'npm test' ? 'heavy (npm test)' : 'light (ls -la)'}`] = await perCall(answer);
    if ((command === 'npm test') !== ran.command.includes('run --or-local')) throw new Error(`the mod answered ${ran.command} for ${command}`);
  }
}
{
  const home = homeFor();
  const file = join(home, 'sparehand.js');
  writeFileSync(file, pluginSource(hookCommand('opencode')));
  const saved = process.env.HOME;
  process.env.HOME = home;
  const hooks = await (await import(pathToFileURL(file).href)).SparehandPlugin({ directory: home });
  for (const command of ['npm test', 'ls -la']) {
    let args;
    const answer = async () => {
      args = { command, description: 'bench' };
      await hooks['tool.execute.before']({ tool: 'bash', sessionID: 'bench', callID: 'c' }, { args });
    };
    inside[`plugin, ${command === 'npm test' ? 'heavy (npm test)' : 'light (ls -la)'}`] = await perCall(answer);
    if ((command === 'npm test') !== args.command.includes('run --or-local')) throw new Error(`the plugin answered ${args.command} for ${command}`);
  }
  process.env.HOME = saved;
}
console.log(`inside the tool's own process, per call (median of ${CALLS} after 20), no process started; goal ≤ 1 ms:`);
for (const [name, { median: ms, p90 }] of Object.entries(inside)) {
  console.log(
    `  ${name.padEnd(36)} ${ms.toFixed(3).padStart(7)} ms   ${(ms / base).toFixed(3)}× a bare start   ≤ 1 ms: ${ms <= 1 ? 'met' : 'NOT met'}   (9 calls in 10 within ${p90.toFixed(3)} ms)`,
  );
}
