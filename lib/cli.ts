// Builds the command line; the ONE place that catches errors and turns them into messages and exit statuses.
import { CommanderError } from 'commander';
import { register as registerAgent } from './commands/agent.js';
import { register as registerClassify } from './commands/classify.js';
import { SparehandCommand } from './commands/command.js';
import { register as registerDoctor } from './commands/doctor.js';
import { commandPath, register as registerHelp } from './commands/help.js';
import { register as registerLog } from './commands/log.js';
import { dashDashHint, register as registerRun } from './commands/run.js';
import { register as registerStatus } from './commands/status.js';
import { register as registerWorker } from './commands/worker.js';
import { type Context, processContext } from './context.js';
import { type ErrorCode, isSparehandError } from './errors.js';
import { VERSION } from './version.js';

const EXAMPLES = `
Examples:
  sparehand run --or-local -- npm test           run the tests on a worker, or here when none can be reached
  sparehand worker add box me@spare-machine      a worker: any host you can already \`ssh\` into
  sparehand agent install all                    connect the coding tools found on this machine
  sparehand classify -- 'npm test 2>&1 | tail'   what the hooks make of a command, and why
  sparehand help worker add                      help for one command; \`sparehand help config\` for a topic
`;

export function buildProgram(ctx: Context): SparehandCommand {
  const output = {
    writeOut: (s: string) => ctx.stdout.write(s),
    writeErr: (s: string) => ctx.stderr.write(s),
    // Usage errors are printed by main(), in one line with what to type instead.
    outputError: () => {},
  };
  const program = new SparehandCommand('sparehand')
    .description("send your coding agents' heavy commands (tests, builds, type checks) to a spare machine over SSH")
    .version(VERSION, '-V, --version')
    .option('--debug', 'show the cause of errors')
    .helpCommand(false)
    .addHelpText('after', EXAMPLES)
    .configureOutput(output)
    .exitOverride();
  registerRun(program, ctx);
  registerWorker(program, ctx);
  registerAgent(program, ctx);
  registerClassify(program, ctx);
  registerDoctor(program, ctx);
  registerStatus(program, ctx);
  registerLog(program, ctx);
  registerHelp(program, ctx);
  for (const sub of program.commands) {
    sub.exitOverride().configureOutput(output);
    for (const subsub of sub.commands) subsub.exitOverride().configureOutput(output);
  }
  return program;
}

/**
 * The exit status of a failure of sparehand's own: under `run` always 125 (the command did not start, as with
 * `docker run`), elsewhere 2 for what the user typed (a usage error, a name that does not exist) and 1 for the rest.
 */
function failureStatus(code: ErrorCode, command: string | undefined): number {
  if (command === 'run') return 125;
  return code === 'USAGE' || code === 'NOT_FOUND' ? 2 : 1;
}

/** Runs the CLI with `argv` (as process.argv) and returns the exit status. */
export async function main(argv: readonly string[], ctx: Context = processContext()): Promise<number> {
  const program = buildProgram(ctx);
  const args = argv.slice(2);
  const command = args.find((a) => !a.startsWith('-'));
  const debug = args.includes('--debug');
  // Bare `sparehand` asks what there is: the help, on stdout, and success.
  if (args.every((a) => a === '--debug')) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync([...argv]);
    // What the command's action returned: its exit status.
    return program.exitStatus;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.exitCode === 0) return 0;
      // A command group without its subcommand (`sparehand worker`): commander printed the group's help, which
      // is the message; its placeholder text is not one.
      if (e.code === 'commander.help') return failureStatus('USAGE', command);
      const message = e.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
      const dashDash =
        command === 'run' && e.code === 'commander.unknownOption' ? dashDashHint(args, program.commands.find((c) => c.name() === 'run')!) : undefined;
      if (dashDash) ctx.stderr.write(`sparehand: ${message}: ${dashDash}\n`);
      else ctx.stderr.write(`sparehand: ${message}; see \`${['sparehand help', ...commandPath(program, args)].join(' ')}\`\n`);
      return failureStatus('USAGE', command);
    }
    if (isSparehandError(e)) {
      ctx.stderr.write(`sparehand: ${e.message}\n`);
      if (e.hint) ctx.stderr.write(`sparehand: ${e.hint}\n`);
      if (debug && e.cause) ctx.stderr.write(`${String((e.cause as Error).stack ?? e.cause)}\n`);
      return failureStatus(e.code, command);
    }
    ctx.stderr.write(`sparehand: internal error: ${(e as Error).message ?? String(e)}\n`);
    if (debug) ctx.stderr.write(`${(e as Error).stack ?? ''}\n`);
    ctx.stderr.write('sparehand: this is a bug; run again with --debug and report what it prints\n');
    return failureStatus('INTERNAL', command);
  }
}
