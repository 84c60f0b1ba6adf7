#!/usr/bin/env node
// CommonJS on purpose (bin/package.json): an ES module entry costs a quarter of a bare Node start, and the
// hook is on the path of every shell command an agent runs. The hook loads one bundled file; the CLI, the rest.
'use strict';

const args = process.argv.slice(2);
if (args[0] === 'agent' && args[1] === 'hook' && !args.includes('--help') && !args.includes('-h')) {
  try {
    require('../dist/hook.bundle.cjs');
  } catch {
    // Fails open even when sparehand itself cannot load: nothing on stdout, exit 0, the command goes ahead.
    process.exitCode = 0;
  }
} else {
  // `sparehand agent status | head`: a reader that goes away is not an error.
  process.stdout.on('error', (e) => {
    if (e && e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
  let cli;
  try {
    cli = require('../dist/cli-loader.cjs').loadCli();
  } catch (e) {
    process.stderr.write(`sparehand: cannot load (${e && e.message}); run \`npm run build\` in ${__dirname}/..\n`);
    process.exitCode = 125;
  }
  if (cli) cli.main(process.argv).then((code) => (process.exitCode = code));
}
