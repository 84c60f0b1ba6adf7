// A report holds up as far as it is right (issue 35): an odd but real entry the command made — a file dated
// before 1970 — is that entry alone, and the rest of what the command changed comes back with it. A real sshd
// whose sessions run as an ordinary user, the real CLI.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { gitProject } from '../helpers/project.js';
import { sharedWorker } from '../helpers/worker-env.js';

const shared = sharedWorker();

describe('a report holds up as far as it is right', () => {
  it('a file with a pre-1970 mtime and a real edit in the same report: both come back, the old file with its date', async () => {
    const proj = gitProject({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' });
    const r = await sparehand(['run', '--', 'echo edited > a.txt && echo old > old.txt && touch -d "1960-01-01 00:00:00 UTC" old.txt && rm src/b.txt'], {
      env: shared.wh.env,
      cwd: proj,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('cannot be trusted');
    expect(readFileSync(join(proj, 'a.txt'), 'utf8')).toBe('edited\n');
    expect(readFileSync(join(proj, 'old.txt'), 'utf8')).toBe('old\n');
    expect(statSync(join(proj, 'old.txt')).mtimeMs).toBe(Date.parse('1960-01-01T00:00:00Z'));
    expect(() => statSync(join(proj, 'src', 'b.txt'))).toThrow();
  });
});
