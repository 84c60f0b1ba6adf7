// Reads the config file's text, refusing what would hang or flood a reader (a FIFO, /dev/zero, a huge file). The
// hook's hot path uses it too, so it stays free of zod and the schema.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { SparehandError } from './errors.js';

const MAX_CONFIG_BYTES = 1024 * 1024;

const hint = 'point SPAREHAND_CONFIG at another file, or unset it to use ~/.config/sparehand/config.json';

/** The file's text, or undefined when there is no file. Throws a CONFIG error naming the file otherwise. */
export function readConfigText(path: string): string | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO with no writer would wait forever.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    const denied = code === 'EACCES' || code === 'EPERM';
    throw new SparehandError('CONFIG', `cannot read ${path}: ${(e as Error).message}`, {
      cause: e,
      hint: denied ? `let your user read it (\`chmod u+r ${path}\`), or ${hint}` : hint,
    });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new SparehandError('CONFIG', `${path} is not a regular file`, { hint });
    if (st.size > MAX_CONFIG_BYTES) {
      throw new SparehandError('CONFIG', `${path} is ${st.size} bytes; a config file is at most ${MAX_CONFIG_BYTES} bytes`, { hint });
    }
    // Not zero-filled (the hook reads this on every call): only the bytes read are decoded.
    const buf = Buffer.allocUnsafe(MAX_CONFIG_BYTES + 1);
    let size = 0;
    for (let n = 1; n > 0 && size <= MAX_CONFIG_BYTES; size += n) n = readSync(fd, buf, size, buf.length - size, null);
    if (size > MAX_CONFIG_BYTES) throw new SparehandError('CONFIG', `${path} grew over ${MAX_CONFIG_BYTES} bytes while it was read`, { hint });
    return buf.toString('utf8', 0, size);
  } finally {
    closeSync(fd);
  }
}

/** The line that names the fields of the config file at `path` that sparehand does not know. */
export const unknownFieldsLine = (path: string, unknown: readonly string[]): string =>
  `${path}: unknown field${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} (ignored; the fields are in \`sparehand help config\`)`;
