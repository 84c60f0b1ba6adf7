// Issue 21: rewrites that mean the same as the original. sparehand's own lines never take the place of the
// command's in a pipe or a file, and a word naming a place outside the project keeps the command here.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classify, rewriteCommand } from '../../lib/classify/index.js';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';

const rewrite = (cmd: string) => {
  const c = classify(cmd);
  return { rule: c.rule, rewrite: c.wrap ? rewriteCommand(c, 'sparehand') : null };
};

describe("where the command's stderr goes is decided inside the run", () => {
  it.each([
    ['npm test 2>&1 | tail -1', "sparehand run --or-local -- 'npm test 2>&1' | tail -1"],
    ['npm test > x.log 2>&1', "sparehand run --or-local -- 'npm test 2>&1' > x.log"],
    ['npm test >> x.log 2>&1', "sparehand run --or-local -- 'npm test 2>&1' >> x.log"],
    ['npm test 2>err.log', "sparehand run --or-local -- 'npm test 2>err.log'"],
    ['npm test 2>/dev/null | tail -1', "sparehand run --or-local -- 'npm test 2>/dev/null' | tail -1"],
    ['npm test &> out.log', "sparehand run --or-local -- 'npm test 2>&1' > out.log"],
    ['npm test &> /tmp/x.log', "sparehand run --or-local -- 'npm test 2>&1' > /tmp/x.log"],
    ['npm test &>> x.log', "sparehand run --or-local -- 'npm test 2>&1' >> x.log"],
    ['npm test > a.log &>b.log', "sparehand run --or-local -- 'npm test 2>&1' > a.log >b.log"],
    ['npm test |& tail -1', "sparehand run --or-local -- 'npm test 2>&1' | tail -1"],
    ['npm test 2>/dev/null |& cat', "sparehand run --or-local -- 'npm test 2>/dev/null 2>&1' | cat"],
    ['(npm test) |& tail -2', "sparehand run --or-local -- '(npm test) 2>&1' | tail -2"],
    ['npm test &> x.log 2>&1', "sparehand run --or-local -- 'npm test &> x.log 2>&1'"],
    ['npm test 2>&1 > out.log | cat', "sparehand run --or-local -- 'npm test 2>&1 > out.log' | cat"],
    ['(npm test) > x.log 2>&1 && git diff', "sparehand run --or-local -- '(npm test) 2>&1' > x.log && git diff"],
    ['npm test > x.log', "sparehand run --or-local -- 'npm test' > x.log"],
  ])('%s', (cmd, want) => {
    expect(rewrite(cmd).rewrite).toBe(want);
  });

  it('leaves alone what it cannot keep: stderr with an append on the worker', () => {
    expect(rewrite('npm test >> x.log |& cat')).toEqual({ rule: 'local: stderr appended to a file', rewrite: null });
    expect(rewrite('npm test 2>&1 >> x.log')).toEqual({ rule: 'local: stderr appended to a file', rewrite: null });
    expect(rewrite('npm test 2>>err.log')).toEqual({ rule: 'local: stderr appended to a file', rewrite: null });
  });
});

describe('a word naming a place outside the project keeps the command here', () => {
  it.each([
    ['npm test -- --outputFile=../report.json', 'local: path outside the project: ../report.json'],
    ['make report OUT=../report.txt', 'local: path outside the project: ../report.txt'],
    ['OUT=../report.txt make report', 'local: path outside the project: ../report.txt'],
    ['make print X=~', 'local: path outside the project: ~'],
    ['make print X=a:~/b', 'local: path outside the project: ~/b'],
    ['make print X=$HOME', 'local: expands $HOME'],
    ['make print X="${HOME}"', 'local: expands ${HOME}'],
    ['cargo build -o ../x', 'local: path outside the project: ../x'],
    ['pytest -o../x', 'local: path outside the project: ../x'],
    ['make -C .. test', 'local: path outside the project: ..'],
    ['pytest --junitxml=../r.xml', 'local: path outside the project: ../r.xml'],
    ['npm test -- --output-file sub/../../r.json', 'local: path outside the project: sub/../../r.json'],
    ['npm test -- --outputFile=/tmp/r.json', 'local: path outside the project: /tmp/r.json'],
    ['cargo test --target-dir ~/t', 'local: path outside the project: ~/t'],
    ['npm test 2>../err.log', 'local: path outside the project: ../err.log'],
    ['cd sub && npm test -- ../../r.json', 'local: path outside the project: ../../r.json'],
  ])('%s', (cmd, rule) => {
    const c = classify(cmd);
    expect({ heavy: c.heavy, rule: c.rule }).toEqual({ heavy: false, rule });
    expect(c.reason).toContain('left alone, it runs here');
  });

  it('from a folder below the project root, a ../x that climbs no higher stays inside (the caller says how deep)', () => {
    expect(classify('npm test -- --outputFile=../r.json', {}, { depth: 1 }).heavy).toBe(true);
    expect(classify('make -C .. test', {}, { depth: 2 }).heavy).toBe(true);
    expect(classify('npm test -- ../../r.json', {}, { depth: 1 }).rule).toBe('local: path outside the project: ../../r.json');
    expect(classify('cd a && npm test -- ../../r.json', {}, { depth: 1 }).heavy).toBe(true);
  });

  it('sparehand classify, run in a subfolder of a project, knows how deep it is', async () => {
    const proj = gitProject({ 'pkg/sub/a.txt': 'a\n' });
    const at = (cwd: string) =>
      sparehand(['classify', '--json', '--', 'npm test -- --outputFile=../../r.json'], {
        cwd,
        env: { HOME: tempDir('sparehand-home-'), PATH: process.env.PATH },
      });
    expect(JSON.parse((await at(join(proj, 'pkg', 'sub'))).stdout).heavy).toBe(true);
    expect(JSON.parse((await at(join(proj, 'pkg'))).stdout).rule).toBe('local: path outside the project: ../../r.json');
  });

  it('but not a path that stays inside, a quoted ~, a URL, or the program rules', () => {
    for (const cmd of [
      'npm test -- --outputFile=report.json',
      'npm test -- src/../x',
      'cd sub && make -f ../Makefile test',
      "npm test -- '~'",
      'npm test -- --registry=http://h/../x',
      'cd app && ../gradlew build',
      'npm test > ../out.txt',
      'make test X=a.b',
    ])
      expect(classify(cmd).heavy, cmd).toBe(true);
  });
});
