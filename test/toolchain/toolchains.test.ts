import { describe, expect, it } from 'vitest';
import { compareToolchains, toolchainsOf } from '../../lib/toolchain/project.js';
import { satisfies, significant, versionIn } from '../../lib/toolchain/table.js';
import { gitProject } from '../helpers/project.js';

describe('toolchain versions', () => {
  it('reads the version out of what each program prints', () => {
    expect(
      [
        'v20.11.1',
        'Python 3.11.7',
        'go version go1.22.1 linux/amd64',
        'openjdk version "17.0.15" 2025-04-15',
        'rustc 1.95.0 (59807616e 2026-04-14)',
        '9.1.0',
        'bun 1',
      ].map(versionIn),
    ).toEqual(['20.11.1', '3.11.7', '1.22.1', '17.0.15', '1.95.0', '9.1.0', '1']);
    expect([significant('20.11.1', 1), significant('3.11.7', 2), significant('1.22.1', 2)]).toEqual(['20', '3.11', '1.22']);
    expect([
      satisfies('20.11.1', '20'),
      satisfies('20.11.1', 'v20.11'),
      satisfies('18.19.0', '20'),
      satisfies('3.12.1', '3.11'),
      satisfies('20.1.0', 'lts/*'),
    ]).toEqual([true, true, false, false, true]);
  });

  it('which toolchains a project uses, from its files up to the root, with what its version files want', () => {
    const proj = gitProject({
      'package.json': '{}',
      'pnpm-lock.yaml': 'x',
      '.nvmrc': 'v20\n',
      'svc/pyproject.toml': '',
      'svc/uv.lock': '',
      'svc/.python-version': '3.12\n',
      '.tool-versions': 'golang 1.22.1\nnodejs 18.0.0\n',
      'svc/go.mod': 'module x\n',
      'crate/Cargo.toml': '',
      'crate/rust-toolchain.toml': '[toolchain]\nchannel = "1.75.0"\n',
    });
    const used = (cwd: string) =>
      toolchainsOf(proj, `${proj}/${cwd}`).map((u) => `${u.toolchain.id} ${u.because}${u.wanted ? ` ${u.wanted.file}=${u.wanted.version}` : ''}`);
    expect(used('.')).toEqual(['node package.json .nvmrc=v20', 'pnpm pnpm-lock.yaml']);
    expect(used('svc')).toEqual([
      'node package.json .nvmrc=v20',
      'pnpm pnpm-lock.yaml',
      'python svc/pyproject.toml svc/.python-version=3.12',
      'uv svc/uv.lock',
      'go svc/go.mod .tool-versions=1.22.1',
    ]);
    expect(used('crate')).toEqual(['node package.json .nvmrc=v20', 'pnpm pnpm-lock.yaml', 'rust crate/Cargo.toml crate/rust-toolchain.toml=1.75.0']);
  });

  it('flags a worker without the toolchain, a different significant version, and a version file not met', () => {
    const used = toolchainsOf(gitProject({ 'package.json': '{}', '.nvmrc': '20', 'pyproject.toml': '' }));
    const here = new Map([
      ['node --version', 'v20.11.1'],
      ['python3 --version', 'Python 3.11.7'],
    ]);
    const workers = new Map([
      [
        'a',
        new Map([
          ['node --version', 'v20.9.0'],
          ['python3 --version', 'Python 3.12.0'],
        ]),
      ],
      [
        'b',
        new Map<string, string | null>([
          ['node --version', 'v18.0.0'],
          ['python3 --version', null],
        ]),
      ],
    ]);
    expect(compareToolchains(used, here, workers).map((r) => [r.id, r.workers, r.problems])).toEqual([
      ['node', { a: '20.9.0', b: '18.0.0' }, ['b has node 18.0.0, here 20.11.1']],
      ['python', { a: '3.12.0', b: null }, ['a has python 3.12.0, here 3.11.7', 'b has no python (here: 3.11.7)']],
    ]);
  });
});
