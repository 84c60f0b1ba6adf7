#!/usr/bin/env node
// Writes the per-tool part of docs/agents.md from the registry (run after `npm run build`);
// `--check` only says whether the committed file matches (exit 1 when it does not).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { allAgents } = await import(join(root, 'dist/agents/index.js'));
const { renderAgentsDoc, replaceGenerated } = await import(join(root, 'dist/install/agents-doc.js'));
const file = join(root, 'docs/agents.md');
const doc = readFileSync(file, 'utf8');
const next = replaceGenerated(doc, renderAgentsDoc(allAgents()));
if (process.argv.includes('--check')) {
  if (next !== doc) {
    process.stderr.write('docs/agents.md does not match the registry: run `npm run build && node scripts/agents-doc.js`\n');
    process.exit(1);
  }
} else if (next !== doc) {
  writeFileSync(file, next);
}
