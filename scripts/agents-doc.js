#!/usr/bin/env node
// Writes the generated parts of docs/agents.md and docs/environment.md from the registry, and what `sparehand classify`
// prints for docs/hook.md's examples (run after `npm run build`); `--check` only says whether the committed files
// match (exit 1 when one does not).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { allAgents } = await import(join(root, 'dist/agents/index.js'));
const { renderAgentsDoc, renderEnvironmentDoc, replaceGenerated } = await import(join(root, 'dist/docs/agents-doc.js'));
const { classifyLineOutput, renderClassifyExamples } = await import(join(root, 'dist/docs/classify-examples.js'));
const bin = join(root, 'bin/sparehand.js');
let stale = false;
for (const [name, render] of [
  ['docs/agents.md', async (doc) => replaceGenerated(doc, await renderAgentsDoc(allAgents()))],
  ['docs/environment.md', async (doc) => replaceGenerated(doc, await renderEnvironmentDoc(allAgents()))],
  ['docs/hook.md', (doc) => renderClassifyExamples(doc, (line) => classifyLineOutput(line, bin))],
]) {
  const file = join(root, name);
  const doc = readFileSync(file, 'utf8');
  const next = await render(doc);
  if (next === doc) continue;
  if (process.argv.includes('--check')) {
    process.stderr.write(`${name} does not match the code: run \`npm run docs:agents\`\n`);
    stale = true;
  } else writeFileSync(file, next);
}
if (stale) process.exit(1);
