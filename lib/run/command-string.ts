// `run -- A` is a shell string; `run -- A B C` is an argv, quoted and joined into one.
import { quote } from 'shell-quote';
import { SparehandError } from '../errors.js';

export function commandString(args: readonly string[]): string {
  if (args.length === 0) {
    throw new SparehandError('USAGE', 'no command given', { hint: "usage: sparehand run [options] -- '<command>'" });
  }
  return args.length === 1 ? (args[0] as string) : quote([...args]);
}
