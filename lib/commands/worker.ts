// `sparehand worker` (placeholder: not built yet).
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';

export function register(program: Command, _ctx: Context, _setExit: (n: number) => void): void {
  program
    .command('worker')
    .description('(not built yet)')
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      throw new SparehandError('USAGE', '`sparehand worker` is not built yet');
    });
}
