// The shard planner: each runner's own shard option where it has one, files or packages shared out where it has
// not, the runner found through npm scripts and launchers, and one line for every command it leaves whole.
import { describe, expect, it } from 'vitest';
import { canSplit, planSplit } from '../../lib/split/plan.js';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diskView, memoryView } from '../../lib/split/view.js';
import { tempDir } from '../helpers/context.js';

const none = memoryView({});
const pkg = (scripts: Record<string, string>, more: Record<string, string> = {}) => memoryView({ 'package.json': JSON.stringify({ scripts }), ...more });

describe('runners that shard themselves', () => {
  it('vitest and jest: --shard=i/N (an empty shard passes)', () => {
    expect(planSplit('npx vitest run', 2, none)).toEqual({
      runner: 'vitest',
      how: 'vitest --shard',
      shards: ['npx vitest run --shard=1/2 --passWithNoTests', 'npx vitest run --shard=2/2 --passWithNoTests'],
    });
    expect(planSplit('CI=1 jest --ci 2>&1', 2, none)).toMatchObject({
      runner: 'jest',
      shards: ['CI=1 jest --ci --shard=1/2 --passWithNoTests 2>&1', expect.any(String)],
    });
  });

  it('Playwright: playwright test --shard=i/N', () => {
    expect(planSplit('npx playwright test --project=chromium', 3, none)).toMatchObject({
      runner: 'playwright',
      shards: [
        'npx playwright test --project=chromium --shard=1/3',
        'npx playwright test --project=chromium --shard=2/3',
        'npx playwright test --project=chromium --shard=3/3',
      ],
    });
  });

  it("Node's runner: --test-shard right after --test, before the files", () => {
    expect(planSplit('node --test test/', 2, none)).toMatchObject({
      runner: 'node',
      shards: ['node --test --test-shard=1/2 test/', 'node --test --test-shard=2/2 test/'],
    });
  });

  it('cargo nextest: --partition count:i/N after `run`', () => {
    expect(planSplit('cargo nextest run --workspace -- --nocapture', 2, none)).toMatchObject({
      runner: 'nextest',
      shards: ['cargo nextest run --partition count:1/2 --workspace -- --nocapture', 'cargo nextest run --partition count:2/2 --workspace -- --nocapture'],
    });
  });

  it('through wrappers the classifier knows (timeout, env, cd)', () => {
    expect(planSplit('cd web && timeout 600 env CI=1 vitest', 2, none)).toMatchObject({
      shards: ['cd web && timeout 600 env CI=1 vitest --shard=1/2 --passWithNoTests', expect.any(String)],
    });
  });
});

describe('through package scripts', () => {
  it('npm test whose script is `vitest run`: the option after `--`', () => {
    expect(planSplit('npm test', 2, pkg({ test: 'vitest run' }))).toMatchObject({
      runner: 'vitest',
      shards: ['npm test -- --shard=1/2 --passWithNoTests', 'npm test -- --shard=2/2 --passWithNoTests'],
    });
    expect(planSplit('npm test -- --reporter=dot', 2, pkg({ test: 'vitest run' }))).toMatchObject({
      shards: ['npm test -- --reporter=dot --shard=1/2 --passWithNoTests', expect.any(String)],
    });
  });

  it('pnpm and yarn pass the option on themselves; `pnpm vitest` with no such script is the bin', () => {
    expect(planSplit('pnpm run test:unit', 2, pkg({ 'test:unit': 'node --test' }))).toMatchObject({
      runner: 'node',
      shards: ['pnpm run test:unit --test-shard=1/2', expect.any(String)],
    });
    expect(planSplit('yarn test', 2, pkg({ test: 'jest' }))).toMatchObject({ shards: ['yarn test --shard=1/2 --passWithNoTests', expect.any(String)] });
    expect(planSplit('pnpm vitest run', 2, pkg({}))).toMatchObject({ shards: ['pnpm vitest run --shard=1/2 --passWithNoTests', expect.any(String)] });
  });

  it('a script that calls another script is followed (each npm takes its own `--`)', () => {
    expect(planSplit('npm test', 2, pkg({ test: 'npm run unit', unit: 'vitest run' }))).toMatchObject({
      shards: ['npm test -- -- --shard=1/2 --passWithNoTests', expect.any(String)],
    });
  });

  it('a script the option cannot be added to runs whole, saying why', () => {
    expect(planSplit('npm test', 2, pkg({ test: 'tsc && vitest run' }))).toEqual({ whole: 'the "test" script is not one test command (tsc && vitest run)' });
    expect(planSplit('npm test', 2, pkg({ test: 'node --test test/*.js' }))).toEqual({
      whole: 'the "test" script runs node in a way that a shard option cannot be added to from outside',
    });
    expect(planSplit('npm test', 2, pkg({ test: 'vitest run', pretest: 'npm run build' }))).toEqual({
      whole: 'package.json has a "pretest" script, which every shard would run again',
    });
    expect(planSplit('npm test', 2, none)).toEqual({ whole: 'package.json has no "test" script sparehand can read' });
  });
});

describe('runners split by file or package', () => {
  const py = memoryView({
    'tests/test_a.py': '',
    'tests/test_b.py': '',
    'tests/helpers.py': '',
    'tests/sub/c_test.py': '',
    '.venv/lib/test_x.py': '',
    'node_modules/test_y.py': '',
  });

  it('pytest: the test files it would collect, shared round-robin; the paths given are replaced', () => {
    expect(planSplit('pytest -q -k fast tests', 2, py)).toEqual({
      runner: 'pytest',
      how: 'pytest by test file',
      shards: ['pytest -q -k fast tests/sub/c_test.py tests/test_b.py', 'pytest -q -k fast tests/test_a.py'],
    });
    expect(planSplit('python3 -m pytest', 5, py)).toMatchObject({
      shards: ['python3 -m pytest tests/sub/c_test.py', 'python3 -m pytest tests/test_a.py', 'python3 -m pytest tests/test_b.py'],
    });
  });

  it("pytest's testpaths are walked; a config that changes which files it collects runs whole", () => {
    const v = memoryView({ 'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["t"]\n', 't/test_1.py': '', 't/test_2.py': '', 'other/test_3.py': '' });
    expect(planSplit('pytest', 4, v)).toMatchObject({ shards: ['pytest t/test_1.py', 'pytest t/test_2.py'] });
    const w = memoryView({ 'pytest.ini': '[pytest]\npython_files = check_*.py\n', 'check_a.py': '' });
    expect(planSplit('pytest', 2, w)).toEqual({ whole: "pytest's pytest.ini sets python_files: sparehand cannot list its files" });
    expect(planSplit('pytest tests/test_a.py', 2, py)).toEqual({ whole: 'it has one test file to share out' });
  });

  it('go test: the packages of ./... (no testdata, vendor, nested modules), flags kept', () => {
    const v = memoryView({
      'go.mod': 'module x',
      'main.go': '',
      'a/a.go': '',
      'a/a_test.go': '',
      'a/testdata/t.go': '',
      'b/c/c.go': '',
      'vendor/v/v.go': '',
      'tools/go.mod': 'module tools',
      'tools/t.go': '',
    });
    expect(planSplit('go test -run TestX ./... -count 1', 2, v)).toEqual({
      runner: 'go',
      how: 'go test by package',
      shards: ['go test -run TestX -count 1 . ./b/c', 'go test -run TestX -count 1 ./a'],
    });
    expect(planSplit('cd b && go test ./...', 2, v)).toEqual({ whole: 'it has one package to share out' });
    expect(planSplit('go test github.com/x/...', 2, v)).toEqual({
      whole: 'go test is given github.com/x/...: sparehand splits only packages named by ./ paths',
    });
  });
});

describe('commands that run whole, with one line each', () => {
  it.each([
    ['npm test && git diff', 'it is not one test command (a chain or a list): sparehand splits one runner'],
    ['vitest run | tail', 'it is not one test command (a pipe or a subshell): sparehand splits one runner'],
    ['vitest --watch', 'vitest watches (a watch mode never ends)'],
    ['vitest run --shard=1/3', 'it already picks its own shard'],
    ['cargo test', 'cargo test cannot shard itself (cargo nextest can: `cargo nextest run`)'],
    ['node build.js', 'node runs a script, not its test runner (`node --test`)'],
    ['make test', 'make is not a test runner sparehand can split (vitest, jest, Playwright, node --test, cargo nextest, pytest, go test)'],
    ['$RUNNER test', 'the program is named by an expansion ($RUNNER): sparehand cannot tell which runner it is'],
    ['if true; then vitest; fi', 'sparehand cannot follow the command (compound commands are not followed: if)'],
  ])('%s', (command, why) => {
    const plan = planSplit(command, 4, none);
    expect(plan).toHaveProperty('whole');
    if ('whole' in plan && !why.startsWith('sparehand cannot follow')) expect(plan.whole).toBe(why);
  });

  it('one shard is no split', () => {
    expect(planSplit('vitest run', 1, none)).toEqual({ whole: 'one shard: nothing to split' });
  });
});

describe('the hook’s quick look (canSplit)', () => {
  it('takes the runners split by file or package without walking the project', () => {
    const walked: string[] = [];
    const view = { read: () => undefined, list: (p: string) => (walked.push(p), []) };
    expect([canSplit('pytest -q', view), canSplit('go test ./...', view), canSplit('npx vitest run', view), canSplit('make test', view)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(walked).toEqual([]);
  });
});

describe('the project on disk (diskView)', () => {
  it('lists test files as the runner would; a linked folder is not walked', () => {
    const outside = tempDir('sparehand-split-outside-');
    writeFileSync(join(outside, 'test_far.py'), '');
    const dir = tempDir('sparehand-split-disk-');
    mkdirSync(join(dir, 'tests/sub'), { recursive: true });
    for (const f of ['tests/test_a.py', 'tests/sub/b_test.py', 'tests/helpers.py']) writeFileSync(join(dir, f), '');
    symlinkSync(outside, join(dir, 'tests/far'));
    expect(planSplit('pytest tests', 2, diskView(dir))).toMatchObject({ shards: ['pytest tests/sub/b_test.py', 'pytest tests/test_a.py'] });
  });
});
