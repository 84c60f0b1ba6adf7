// The command gets this machine's locale and TZ whatever the worker's sshd accepts (issue 36): a real sshd with no
// `AcceptEnv` (ssh's `SendEnv LANG LC_*` reaches nothing there), a worker profile that sets its own LC_ALL and TZ;
// `worker check` and `doctor` name a locale the worker lacks.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashQuote } from '../../lib/classify/index.js';
import { localesInUse, missingLocales, normalLocale, sendableLocale } from '../../lib/locale.js';
import { localeEnv } from '../../lib/run/env.js';
import { BIN, sparehand } from '../helpers/cli.js';
import { gitProject } from '../helpers/project.js';
import { type Sshd, startSshd, terminalsWork } from '../helpers/sshd.js';
import { type WorkerHome, workerHome } from '../helpers/worker-env.js';
import { workerOwnerHome } from '../helpers/worker-home.js';

let sshd: Sshd;
let wh: WorkerHome;
beforeAll(async () => {
  const owner = workerOwnerHome();
  // The worker's owner has a locale and a zone of their own; the command must have this machine's.
  writeFileSync(join(owner, '.profile'), `${readFileSync(join(owner, '.profile'), 'utf8')}export LC_ALL=POSIX TZ=UTC LANG=C\n`);
  sshd = await startSshd({ home: owner });
  wh = workerHome([sshd]);
}, 60_000);
afterAll(async () => {
  await wh?.close();
  await sshd?.stop();
});

/** What the command prints: LANG and TZ, the zone's abbreviation, how many characters `é` is (1 only in UTF-8), LC_ALL. */
const SHOW = 'echo $LANG $TZ; date +%Z; x=é; echo ${#x} ${LC_ALL-unset}';
const HERE = { LANG: 'C.UTF-8', TZ: 'Asia/Tokyo' };

describe("this machine's locale and TZ on the worker", () => {
  it('reach the command though the worker sshd accepts no variables; a locale variable not set here is not set there', async () => {
    expect(readFileSync(join(sshd.dir, 'sshd_config'), 'utf8')).not.toMatch(/AcceptEnv/i);
    const proj = gitProject({ 'a.txt': 'a\n' });
    const here = await execa('bash', ['-c', SHOW], { env: { PATH: process.env.PATH, ...HERE }, extendEnv: false });
    const r = await sparehand(['run', '--quiet', '--', SHOW], { env: { ...wh.env, ...HERE }, cwd: proj });
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, 'C.UTF-8 Asia/Tokyo\nJST\n1 unset\n']);
    expect(r.stdout).toBe(`${here.stdout}\n`);
  });

  it.runIf(terminalsWork())('in a terminal too (ssh -tt)', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const inner = `${bashQuote(process.execPath)} ${bashQuote(BIN)} run --quiet -- ${bashQuote(SHOW)}`;
    const r = await execa('script', ['-qefc', inner, '/dev/null'], {
      cwd: proj,
      env: { ...wh.env, ...HERE, TERM: 'dumb' },
      extendEnv: false,
      reject: false,
      input: '',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect((r.stdout as string).replaceAll('\r', '')).toContain('C.UTF-8 Asia/Tokyo\nJST\n1 unset');
  });

  it('a value that is not a locale or a zone stays here (it would end up in the environment there)', () => {
    expect(localeEnv({ LANG: 'en_US.UTF-8', LC_TIME: '$(id)', TZ: '../../../etc/passwd', LC_ALL: '' })).toEqual({
      LANG: 'en_US.UTF-8',
      LC_ALL: '',
      ...Object.fromEntries(['LC_CTYPE', 'LC_COLLATE', 'LC_MESSAGES', 'LC_MONETARY', 'LC_NUMERIC'].map((n) => [n, null])),
      ...Object.fromEntries(['LC_ADDRESS', 'LC_IDENTIFICATION', 'LC_MEASUREMENT', 'LC_NAME', 'LC_PAPER', 'LC_TELEPHONE'].map((n) => [n, null])),
    });
    for (const ok of ['sr_RS.UTF-8@latin', 'C', 'POSIX', 'ca_ES@valencia']) expect(sendableLocale('LANG', ok), ok).toBe(true);
    for (const bad of ['en_US.UTF-8\nX=1', 'a b', '/usr/lib/locale/x']) expect(sendableLocale('LANG', bad), bad).toBe(false);
    for (const ok of ['Asia/Tokyo', ':Europe/Paris', 'EST5EDT', '<+0530>-5:30', 'UTC+3']) expect(sendableLocale('TZ', ok), ok).toBe(true);
    for (const bad of ['Asia/../../etc/shadow', 'Asia/Tokyo;id', '']) expect(sendableLocale('TZ', bad), bad).toBe(false);
  });
});

describe('worker check and doctor name a locale the worker lacks', () => {
  it('LANG=xx_YY.UTF-8 here: named, with how to add it there; C.UTF-8 (or C.utf8): nothing said', async () => {
    const missing = await sparehand(['worker', 'check'], { env: { ...wh.env, LANG: 'xx_YY.UTF-8', LC_TIME: 'C.utf8' } });
    expect(missing.exitCode, missing.stderr).toBe(0);
    expect(missing.stdout).toContain(
      '\n  note: w0 has no locale xx_YY.UTF-8 (LANG here): commands there run in the C locale instead (other characters, sorting and formats); add it there (Debian, Ubuntu: `sudo locale-gen xx_YY.UTF-8`, or the package locales-all) or run with a locale it has (`locale -a` there)\n',
    );
    const said = await sparehand(['doctor'], { env: { ...wh.env, LANG: 'xx_YY.UTF-8' } });
    expect(said.stdout).toContain('\n  note: w0 has no locale xx_YY.UTF-8 (LANG here): commands there run in the C locale instead');
    const doctor = await sparehand(['doctor', '--json'], { env: { ...wh.env, LC_ALL: 'xx_YY.UTF-8', LANG: 'yy_ZZ.UTF-8' } });
    // LC_ALL overrides the rest: only it is looked at.
    expect(JSON.parse(doctor.stdout).workers[0].missingLocales).toEqual([{ name: 'LC_ALL', locale: 'xx_YY.UTF-8' }]);
    const fine = await sparehand(['worker', 'check'], { env: { ...wh.env, LANG: 'C.UTF-8', LC_TIME: 'C.utf8', LC_COLLATE: 'POSIX' } });
    expect([fine.exitCode, fine.stdout]).toEqual([0, expect.not.stringContaining('locale')]);
  });

  it('a name is the same locale however its codeset is spelled (`locale -a` says en_US.utf8 on Linux, en_US.UTF-8 on macOS)', () => {
    expect(normalLocale('en_US.UTF-8')).toBe('en_US.utf8');
    expect(normalLocale('sr_RS.UTF-8@latin')).toBe('sr_RS.utf8@latin');
    expect(normalLocale('de_DE')).toBe('de_DE');
    const wanted = localesInUse({ LANG: 'en_US.UTF-8', LC_TIME: 'de_DE.utf8', LC_CTYPE: 'en_US.utf8', LC_COLLATE: 'C.UTF-8' });
    expect(wanted).toEqual([
      { name: 'LANG, LC_CTYPE', locale: 'en_US.UTF-8' },
      { name: 'LC_TIME', locale: 'de_DE.utf8' },
    ]);
    expect(missingLocales(wanted, ['C', 'C.utf8', 'POSIX', 'en_US.utf8'])).toEqual([{ name: 'LC_TIME', locale: 'de_DE.utf8' }]);
    expect(missingLocales(wanted, ['en_US.UTF-8', 'de_DE.UTF-8'])).toEqual([]);
  });
});
