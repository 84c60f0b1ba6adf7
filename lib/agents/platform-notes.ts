// What the hooks cannot see on this system, for `doctor` (each tool's own file says why; the core names none).
import { ancestorFlagsNote } from './claude-permissions.js';

/** One sentence per thing permission parity cannot read here (none on Linux). */
export function permissionParityNotes(env: NodeJS.ProcessEnv): string[] {
  return [ancestorFlagsNote(env)].filter((n): n is string => n !== undefined);
}
