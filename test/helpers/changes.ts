// A change to a file as the worker's report gives it (lib/remote/change.ts) and as a run stages it: its content
// written to `<staging>/<index>`, as report-reader.ts leaves it for the apply.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Change } from '../../lib/remote/change.js';
import { md5 } from './project.js';

/** A file change: `base` the content the command started from (undefined: none), `content` what it left (staged). */
export function fileChange(staging: string, index: number, op: Change['op'], path: string, content?: string, base?: string): Change {
  const c: Change = {
    index,
    op,
    type: 'f',
    mode: 0o644,
    mtime: 1_700_000_000,
    size: content?.length ?? 0,
    base: base === undefined ? undefined : md5(base),
    hash: content === undefined ? undefined : md5(content),
    path,
    target: '',
  };
  if (content !== undefined && op !== 'T') {
    c.staged = join(staging, String(index));
    writeFileSync(c.staged, content);
  }
  return c;
}
