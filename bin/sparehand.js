#!/usr/bin/env node
// The hook is on the path of every shell command an agent runs: it gets a bundled entry that skips the CLI.
const args = process.argv.slice(2);
if (args[0] === 'agent' && args[1] === 'hook') {
  await import('../dist/hook.bundle.js');
} else {
  const { main } = await import('../dist/cli.js');
  process.exitCode = await main(process.argv);
}
