// The sync's memory never widens what is sent (issue 35): an ignored file goes up only as the sync promises for
// outputs (its deletion, or a change here to what came back from the worker and both sides held), never a file
// that was only ever here or that ended as a conflict or a refusal, and a secret never, whatever a record says.
// A real sshd whose sessions run as an ordinary user, the real CLI; a hostile worker whose perl reports what it was
// told to skip.
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, workerHome } from '../helpers/worker-env.js';

let sshd: Sshd;
let wh: WorkerHome;
let hostile: Sshd;
let hostileHome: WorkerHome;
beforeAll(async () => {
  sshd = await startSshd();
  wh = workerHome([sshd]);
  // A worker whose perl runs the program with its skip rules taken out: its report names the secrets the command
  // wrote there (as a forged report would).
  const bin = tempDir('sparehand-hostile-perl-');
  chmodSync(bin, 0o755);
  writeFileSync(
    join(bin, 'perl'),
    [
      '#!/usr/bin/perl',
      'my ($flag, $boot, @rest) = @ARGV;',
      String.raw`$boot =~ s/eval\$program;/\$program =~ s{\\\$job\\\{skip\\\}}{''}g;eval\$program;/;`,
      "exec '/usr/bin/perl', $flag, $boot, @rest;",
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  hostile = await startSshd({ path: `${bin}:/usr/local/bin:/usr/bin:/bin` });
  hostileHome = workerHome([hostile]);
}, 60_000);
afterAll(async () => {
  await wh?.close();
  await hostileHome?.close();
  await sshd?.stop();
  await hostile?.stop();
});
const run = (h: WorkerHome, proj: string, cmd: string) => sparehand(['run', '--', cmd], { env: h.env, cwd: proj });

describe('a file that was only ever here is never read for the worker', () => {
  it('an ignored settings file with a token that ended as a conflict ("kept yours") is not uploaded by the next run', async () => {
    const proj = gitProject({ '.gitignore': 'config/local.settings.json\n.dev.vars\n', 'a.txt': 'a\n' });
    mkdirSync(join(proj, 'config'));
    writeFileSync(join(proj, 'config', 'local.settings.json'), '{"token":"here-only-secret-1"}\n');
    writeFileSync(join(proj, '.dev.vars'), 'API_TOKEN=here-only-secret-2\n');
    const first = await run(wh, proj, `mkdir -p config && echo '{"token":"worker"}' > config/local.settings.json && echo API_TOKEN=worker > .dev.vars`);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toContain('conflict: the command created config/local.settings.json, but a different config/local.settings.json is here; kept yours');
    expect(readFileSync(join(proj, 'config', 'local.settings.json'), 'utf8')).toBe('{"token":"here-only-secret-1"}\n');
    const next = await run(wh, proj, 'cat config/local.settings.json .dev.vars');
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stdout).not.toContain('here-only-secret');
    expect(next.stdout).toBe('{"token":"worker"}\nAPI_TOKEN=worker\n');
    // And still not once the file here changed again.
    writeFileSync(join(proj, '.dev.vars'), 'API_TOKEN=here-only-secret-3\n');
    const third = await run(wh, proj, 'cat .dev.vars');
    expect(third.stdout).not.toContain('here-only-secret');
  });

  it('an empty ignored file here that the command also makes empty (the same bytes) is not adopted: a token written into it later stays here', async () => {
    const proj = gitProject({ '.gitignore': '.dev.vars\nlocal.json\n', 'a.txt': 'a\n', '.dev.vars': '', 'local.json': '{}\n' });
    const first = await run(wh, proj, "touch .dev.vars && printf '{}\\n' > local.json");
    expect(first.exitCode, first.stderr).toBe(0);
    writeFileSync(join(proj, '.dev.vars'), 'API_TOKEN=here-only-secret-4\n');
    writeFileSync(join(proj, 'local.json'), '{"token":"here-only-secret-5"}\n');
    const next = await run(wh, proj, 'cat .dev.vars local.json');
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stdout).not.toContain('here-only-secret');
  });

  it('an output that came back and that you edited here goes up; one deleted here is deleted there and comes back rebuilt', async () => {
    const proj = gitProject({ '.gitignore': 'dist/\n', 'a.txt': 'a\n' });
    expect((await run(wh, proj, 'mkdir -p dist && echo built > dist/o.js && echo built > dist/p.js')).exitCode).toBe(0);
    writeFileSync(join(proj, 'dist', 'o.js'), 'edited here\n');
    rmSync(join(proj, 'dist', 'p.js'));
    const r = await run(wh, proj, 'cat dist/o.js; test -e dist/p.js && echo p-there; echo rebuilt > dist/p.js');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('edited here\n');
    expect(readFileSync(join(proj, 'dist', 'p.js'), 'utf8')).toBe('rebuilt\n');
  });
});

describe('a secret never goes up, whatever a record says', () => {
  it('a forged report naming .env is refused, and the real .env here is not uploaded by the next run', async () => {
    const proj = gitProject({ '.gitignore': '.env\n', 'a.txt': 'a\n', '.env': 'SECRET=here-secret-env\n' });
    const first = await run(hostileHome, proj, 'echo SECRET=worker > .env');
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toContain('.env');
    expect(readFileSync(join(proj, '.env'), 'utf8')).toBe('SECRET=here-secret-env\n');
    const next = await run(hostileHome, proj, 'cat .env 2>/dev/null; echo end');
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stdout).not.toContain('here-secret-env');
    const third = await run(hostileHome, proj, 'cat .env 2>/dev/null; echo end');
    expect(third.stdout).not.toContain('here-secret-env');
  });
});
