// A whole file that belongs to sparehand (a plugin, an executable hook): written whole, removed whole, and never
// written over a file of the user's.
import type { HookCommand, OwnFileTarget } from '../agents/types.js';
import { SparehandError } from '../errors.js';

/** The file's new text; refuses to replace a file that is not sparehand's. */
export function installOwnFile(target: OwnFileTarget, path: string, text: string | undefined, command: HookCommand): string {
  if (text !== undefined && target.commandOf(text) === undefined) {
    throw new SparehandError('INSTALL', `${path} exists and is not sparehand's; it was left untouched`, {
      hint: 'move it away (or merge it by hand) and run the command again',
    });
  }
  return target.content(command);
}

/** undefined (remove) when the file is sparehand's, else the text unchanged. */
export function uninstallOwnFile(target: OwnFileTarget, text: string | undefined): string | undefined {
  if (text === undefined || target.commandOf(text) !== undefined) return undefined;
  return text;
}
