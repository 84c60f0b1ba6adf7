// Builds the command line; the ONE place that catches errors and turns them into messages and exit codes.
import { Command, CommanderError } from 'commander';
import { register as registerAgent } from './commands/agent.js';
import { register as registerClassify } from './commands/classify.js';
import { register as registerDoctor } from './commands/doctor.js';
import { register as registerLog } from './commands/log.js';
import { register as registerRun } from './commands/run.js';
import { register as registerStatus } from './commands/status.js';
import { register as registerWorker } from './commands/worker.js';
import { type Context, processContext } from './context.js';
import { isSparehandError } from './errors.js';
import { VERSION } from './version.js';

export function buildProgram(ctx: Context, setExit: (n: number) => void): Command {
  const program = new Command('sparehand')
    .description("send your coding agents' heavy commands (tests, builds, type checks) to a spare machine over SSH")
    .version(VERSION, '-V, --version')
    .option('--debug', 'show the cause of errors')
    .showHelpAfterError()
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
    })
    .exitOverride();
  registerRun(program, ctx, setExit);
  registerWorker(program, ctx, setExit);
  registerAgent(program, ctx, setExit);
  registerClassify(program, ctx, setExit);
  registerDoctor(program, ctx, setExit);
  registerStatus(program, ctx, setExit);
  registerLog(program, ctx, setExit);
  for (const sub of program.commands) {
    sub.exitOverride().configureOutput(program.configureOutput());
    for (const subsub of sub.commands) subsub.exitOverride().configureOutput(program.configureOutput());
  }
  return program;
}

/** Runs the CLI with `argv` (as process.argv) and returns the exit status. */
export async function main(argv: readonly string[], ctx: Context = processContext()): Promise<number> {
  let exit = 0;
  const program = buildProgram(ctx, (n) => {
    exit = n;
  });
  try {
    await program.parseAsync([...argv]);
    return exit;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.exitCode === 0) return 0;
      // Usage errors: commander already printed the message. `run` is a wrapper: its own failures are 125.
      return argv[2] === 'run' ? 125 : 2;
    }
    if (isSparehandError(e)) {
      ctx.stderr.write(`sparehand: ${e.message}\n`);
      if (e.hint) ctx.stderr.write(`sparehand: ${e.hint}\n`);
      if (argv.includes('--debug') && e.cause) ctx.stderr.write(`${String((e.cause as Error).stack ?? e.cause)}\n`);
      return e.exitCode;
    }
    ctx.stderr.write(`sparehand: internal error: ${(e as Error).message ?? String(e)}\n`);
    if (argv.includes('--debug')) ctx.stderr.write(`${(e as Error).stack ?? ''}\n`);
    ctx.stderr.write('sparehand: this is a bug; run again with --debug and report what it prints\n');
    return 125;
  }
}
