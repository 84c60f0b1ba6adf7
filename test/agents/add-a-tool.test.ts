// Adding a coding tool is one file, one registry line, one fixture folder (CONTRIBUTING.md): in a copy of the
// repository, a copy of one tool file under a new id is picked up by the contract, fuzz, install and docs tests with
// no other edit; and the no-tool-names guard catches the new id written into the core.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const rename = (text: string) =>
  text
    .replaceAll('factory-droid', 'acme-cli')
    .replaceAll('Factory Droid', 'Acme CLI')
    .replaceAll('factoryDroid', 'acmeCli')
    .replaceAll('Execute', 'AcmeShell')
    .replaceAll("'.factory'", "'.acme'")
    .replaceAll("name: 'droid'", "name: 'acme'");

let copy: string;
const vitest = (files: string[]) =>
  execa(process.execPath, [join(copy, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...files], {
    cwd: copy,
    reject: false,
    env: { ...process.env, CI: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
  });

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), 'sparehand-add-a-tool-'));
  for (const f of ['lib', 'test', 'docs', 'scripts', 'bench', 'bin', 'package.json', 'tsconfig.json', 'tsconfig.test.json', 'vitest.config.ts']) {
    cpSync(join(ROOT, f), join(copy, f), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  // 1. The tool file: a copy of one tool under a new id.
  writeFileSync(join(copy, 'lib/agents/acme-cli.ts'), rename(readFileSync(join(ROOT, 'lib/agents/factory-droid.ts'), 'utf8')));
  // 2. The registry line (and its import).
  const index = join(copy, 'lib/agents/index.ts');
  writeFileSync(
    index,
    readFileSync(index, 'utf8')
      .replace("import { claudeCode } from './claude-code.js';", "import { acmeCli } from './acme-cli.js';\nimport { claudeCode } from './claude-code.js';")
      .replace("  'factory-droid': factoryDroid,", "  'factory-droid': factoryDroid,\n  'acme-cli': acmeCli,"),
  );
  // 3. The fixture folder.
  const fixtures = join(copy, 'test/fixtures/agents');
  for (const f of readdirSync(join(fixtures, 'factory-droid'))) {
    cpSync(join(fixtures, 'factory-droid', f), join(fixtures, 'acme-cli', f));
    writeFileSync(join(fixtures, 'acme-cli', f), rename(readFileSync(join(fixtures, 'acme-cli', f), 'utf8')));
  }
  // Then the generated docs, as CONTRIBUTING.md says.
  await execa(process.execPath, ['scripts/build.js'], { cwd: copy });
  await execa(process.execPath, ['scripts/agents-doc.js'], { cwd: copy });
}, 300_000);

afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe('a throwaway tool added as CONTRIBUTING.md says', () => {
  it('is picked up by the contract, fuzz, install and docs tests with no other edit', async () => {
    expect(readFileSync(join(copy, 'docs/agents.md'), 'utf8')).toContain('### Acme CLI (`acme-cli`)');
    expect(readFileSync(join(copy, 'docs/environment.md'), 'utf8')).toContain('`SPAREHAND_AGENT_ACME_CLI`');
    const r = await vitest([
      'test/agents/contract.test.ts',
      'test/agents/fuzz.test.ts',
      'test/commands/agent-install.test.ts',
      'test/install/no-trace.test.ts',
      'test/docs/agents-doc.test.ts',
      'test/style.test.ts',
      '--reporter=verbose',
    ]);
    expect(r.stdout).toMatch(/Tests +\d+ passed/);
    expect(r.exitCode).toBe(0);
    // Each of them ran the new tool.
    expect(r.stdout).toContain('acme-cli > answers a heavy command in its own form');
    expect(r.stdout).toContain('acme-cli: keeps the user');
    expect(r.stdout).toContain('acme-cli: a settings file that held only its seed');
    expect(r.stdout).toContain('acme-cli: the answer shown is what `sparehand agent hook` prints');
  }, 300_000);

  it('the no-tool-names guard fails when its id is written into lib/ outside lib/agents/', async () => {
    const decide = join(copy, 'lib/hook/decide.ts');
    writeFileSync(decide, `${readFileSync(decide, 'utf8')}\n// acme-cli needs a longer timeout\n`);
    const r = await vitest(['test/style.test.ts']);
    expect(r.exitCode).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toContain('hook/decide.ts');
    expect(`${r.stdout}${r.stderr}`).toContain('acme-cli needs a longer timeout');
  }, 120_000);
});
