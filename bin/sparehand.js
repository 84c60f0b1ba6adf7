#!/usr/bin/env node
// The hook is on the path of every shell command an agent runs: it gets a bundled entry that skips the CLI.
const args = process.argv.slice(2);
if (args[0] === 'agent' && args[1] === 'hook') {
  try {
    await import('../dist/hook.bundle.js');
  } catch {
    // Fails open even when sparehand itself cannot load: nothing on stdout, exit 0, the command goes ahead.
    process.exitCode = 0;
  }
} else {
  const { main } = await import('../dist/cli.js');
  process.exitCode = await main(process.argv);
}
