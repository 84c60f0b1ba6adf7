#!/usr/bin/env node
// Writes the generated parts of docs/agents.md and docs/environment.md from the registry (run after `npm run build`);
// `--check` only says whether the committed file matches (exit 1 when it does not).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { allAgents } = await import(join(root, 'dist/agents/index.js'));
const { renderAgentsDoc, renderEnvironmentDoc, replaceGenerated } = await import(join(root, 'dist/docs/agents-doc.js'));
let stale = false;
for (const [name, render] of [
  ['docs/agents.md', renderAgentsDoc],
  ['docs/environment.md', renderEnvironmentDoc],
]) {
  const file = join(root, name);
  const doc = readFileSync(file, 'utf8');
  const next = replaceGenerated(doc, await render(allAgents()));
  if (next === doc) continue;
  if (process.argv.includes('--check')) {
    process.stderr.write(`${name} does not match the registry: run \`npm run docs:agents\`\n`);
    stale = true;
  } else writeFileSync(file, next);
}
if (stale) process.exit(1);
