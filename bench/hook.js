#!/usr/bin/env node
// The hook process's wall time against a bare Node start measured in the same run (interleaved, medians,
// ratios), for a heavy and a light payload. Run after `npm run build`: `node bench/hook.js [runs]`.
// The classifier's in-process throughput is bench/classify.js.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] ?? 25);
const bin = fileURLToPath(new URL('../bin/sparehand.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'sparehand-bench-'));
const env = { PATH: process.env.PATH, HOME: home };
const payload = (command) =>
  JSON.stringify({
    session_id: 'bench',
    transcript_path: '/tmp/t.jsonl',
    cwd: home,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command, description: 'bench' },
  });

const cases = {
  'node -e 0': { args: ['-e', '0'], input: '' },
  'hook, heavy (npm test)': { args: [bin, 'agent', 'hook', '--for', 'claude-code'], input: payload('npm test') },
  'hook, light (ls -la)': { args: [bin, 'agent', 'hook', '--for', 'claude-code'], input: payload('ls -la') },
};

const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < runs + 2; i++) {
  // Interleaved, so machine noise hits every case alike; the first two rounds warm the file cache.
  for (const [name, c] of Object.entries(cases)) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, c.args, { input: c.input, env });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`${name} exited ${r.status}: ${r.stderr}`);
    if (i >= 2) times[name].push(ms);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(times['node -e 0']);
console.log(`hook start-up, median of ${runs} runs (target: ≤ 1.15× a bare node start)`);
for (const [name, xs] of Object.entries(times)) {
  console.log(`  ${name.padEnd(26)} ${median(xs).toFixed(1).padStart(7)} ms   ${(median(xs) / base).toFixed(2)}×`);
}
