#!/usr/bin/env node
// CommonJS on purpose (bin/package.json): an ES module entry costs a quarter of a bare Node start, and the
// hook is on the path of every shell command an agent runs. The hook loads one bundled file; the CLI, the rest.
'use strict';

const args = process.argv.slice(2);

// Loads from dist/ with `get`; while a rebuild swaps dist/ in (scripts/build.js: two renames) its files are missing
// for an instant, so while a build is under way a missing file is asked for again, for up to two seconds.
function load(get) {
  for (let waited = 0; ; waited += 25) {
    try {
      return get();
    } catch (e) {
      if (!e || (e.code !== 'MODULE_NOT_FOUND' && e.code !== 'ENOENT') || waited >= 2000 || !building()) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    }
  }
}

// A build's folders beside dist/ (.dist-build-PID, .dist-old-PID).
function building() {
  try {
    return require('node:fs')
      .readdirSync(require('node:path').join(__dirname, '..'))
      .some((f) => f.startsWith('.dist-'));
  } catch {
    return false;
  }
}

if (args[0] === 'agent' && args[1] === 'hook' && !args.includes('--help') && !args.includes('-h')) {
  try {
    load(() => require('../dist/hook.bundle.cjs'));
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
    cli = load(() => require('../dist/cli-loader.cjs').loadCli());
  } catch (e) {
    process.stderr.write(`sparehand: cannot load (${e?.message}); run \`npm run build\` in ${__dirname}/..\n`);
    process.exitCode = 125;
  }
  if (cli) {
    // Node ends, status 0, when nothing holds its event loop any more, even with main() still waiting: a run would
    // then say nothing and look passed. Never that: whatever left main() waiting, the end is a failure and says so.
    let settled = false;
    process.once('beforeExit', () => {
      if (settled) return;
      process.stderr.write(
        'sparehand: stopped before it was done (nothing was left to wait for: a bug in sparehand, please report it); the command may not have run or ended\n',
      );
      process.exitCode = args[0] === 'run' ? 125 : 1;
    });
    cli.main(process.argv).then((code) => {
      settled = true;
      process.exitCode = code;
    });
  }
}
