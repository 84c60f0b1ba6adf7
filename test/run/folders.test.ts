// A copy of the project on a worker is held by a lock in the state folder, or (where that is read-only: a sandbox)
// in the project's own `.sparehand/folders`: every run looks at both, so a sandboxed run and an unsandboxed one of
// the same project never use the same copy at once.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeFolder } from '../../lib/run/folders.js';
import { homeWith } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';

const worker = { name: 'w0', destination: 'me@box' };

describe('the lock of a copy of the project', () => {
  it("a copy a live run holds in the project's own folder is passed over; one whose run is gone is taken", () => {
    const { home, env } = homeWith();
    const root = gitProject({});
    const lock = join(root, '.sparehand', 'folders', 'w0.key.0');
    mkdirSync(join(root, '.sparehand', 'folders'), { recursive: true });
    // A run still going (this process) locked copy 0 from inside a sandbox.
    writeFileSync(lock, `${process.pid}\n${hostname()}\n`);
    const taken = takeFolder({ home, env }, worker, 'key', root);
    expect(taken.index).toBe(1);
    taken.release();
    expect(readdirSync(join(home, '.local', 'state', 'sparehand', 'folders'))).toEqual([]);
    writeFileSync(lock, `999999\n${hostname()}\n`);
    const stale = takeFolder({ home, env }, worker, 'key', root);
    expect(stale.index).toBe(0);
    stale.release();
  });
});
