// What is never written here, as strictly as git's verify_path about .git; names printed safely.
import { describe, expect, it } from 'vitest';
import { projectSettingsPaths } from '../../lib/agents/project-settings.js';
import { printable } from '../../lib/safe-text.js';
import { isToolSettings, refusedLink, refusedPath } from '../../lib/sync/guard.js';
import { type Entry, refusedChain } from '../../lib/sync/link-chain.js';

describe('the guard', () => {
  it("refuses .git in every spelling git itself refuses, sparehand's folder, and paths that leave the project", () => {
    for (const p of [
      '.git',
      '.git/config',
      'a/.git',
      'a/.GIT/hooks/x',
      'a/.Git',
      '.g\u200cit/x',
      '.git\ufeff',
      'GIT~1/x',
      'a/.git./x',
      '.sparehand/x',
      'sub/.SpareHand',
      '/etc/passwd',
      '../x',
      'a/../../x',
      'a//b',
      './a',
      '',
    ]) {
      expect(refusedPath(p), p).toBeDefined();
    }
    for (const p of ['.github/workflows/ci.yml', 'a/.gitignore', '.gitmodules2', 'git', 'src/.gitkeep', 'dist/app.js', '.sparehandx'])
      expect(refusedPath(p), p).toBeUndefined();
  });

  it('a link may point inside the project, never outside it or into .git or .sparehand', () => {
    expect(refusedLink('out/l', '../src/a.ts')).toBeUndefined();
    expect(refusedLink('l', 'dist/x')).toBeUndefined();
    for (const [p, t] of [
      ['l', '/etc'],
      ['out/l', '../../x'],
      ['l', '..'],
      ['out/l', '../.git/hooks'],
      ['l', 'sub/.GIT'],
      ['l', '.sparehand/sync'],
      ['l', ''],
    ]) {
      expect(refusedLink(p as string, t as string), `${p} -> ${t}`).toBeDefined();
    }
  });

  it('a link is judged by where its whole chain ends, through every state a path may be in after the apply', () => {
    const tree = (t: Record<string, Entry[]>) => (p: string) => t[p] ?? [];
    const budget = () => ({ steps: 10_000 });
    const chain = (p: string, target: string, t: Record<string, Entry[]>) => refusedChain(p, target, tree(t), budget());
    const x: Record<string, Entry[]> = { x: [{ link: '.' }] };
    // Each inside on its own text; together, the project's parent.
    expect(refusedLink('up', 'x/..')).toBeUndefined();
    expect(chain('up', 'x/..', x)).toBe('it is a link to a place outside the project');
    expect(chain('x', '.', x)).toBeUndefined();
    expect(chain('ok', 'x/x/x/src/a.ts', x)).toBeUndefined();
    // A link at the end of the chain is followed too, and so is one a folder may still be (a conflict keeps it).
    expect(chain('a', 'b', { b: [{ link: '../..' }] })).toBe('it is a link to a place outside the project');
    expect(chain('a', 'd/..', { d: ['folder', { link: 'sub/deeper' }] })).toBeUndefined();
    expect(chain('a', 'd/../..', { d: ['folder', { link: '.' }] })).toBe('it is a link to a place outside the project');
    expect(chain('a', 'd/f', { d: ['folder', { link: '/etc' }] })).toBe('it is a link to a place outside the project');
    expect(chain('a', 'g/hooks', { g: [{ link: '.git' }] })).toBe("it is a link into .git or sparehand's own folder");
    // Loops and endless chains end, and a report's budget is shared by all its links.
    expect(chain('a', 'a/x', { a: [{ link: 'a/x' }] })).toMatch(/does not end/);
    const wide: Record<string, Entry[]> = {};
    for (let i = 0; i < 30; i++) wide[`l${i}`] = [{ link: `l${i + 1}` }, { link: `l${i + 1}/.` }];
    expect(refusedChain('a', 'l0', tree(wide), { steps: 5000 })).toMatch(/more links to follow/);
  });

  it("knows the coding tools' settings in the project from the registry, in any case", () => {
    const settings = projectSettingsPaths();
    expect(settings).toEqual(expect.arrayContaining(['.claude/', '.codex/', '.cursor/', '.gemini/', '.github/', '.vscode/', 'AGENTS.md']));
    for (const p of ['.claude/settings.json', '.CLAUDE/settings.local.json', '.github/hooks/sparehand.json', 'AGENTS.md', '.agents/skills/x.md'])
      expect(isToolSettings(p, settings), p).toBe(true);
    for (const p of ['src/AGENTS.md.bak', 'claude/x', 'docs/AGENTS.md']) expect(isToolSettings(p, settings), p).toBe(false);
  });

  it('prints names safely: control characters, escapes and text-reordering controls are escaped and the name quoted', () => {
    expect(printable('src/a.ts')).toBe('src/a.ts');
    expect(printable('héllo wörld.ts')).toBe('héllo wörld.ts');
    expect(printable('a\nsparehand: ran on box: all good')).toBe('"a\\nsparehand: ran on box: all good"');
    expect(printable('\x1b[2K\rx')).toBe('"\\x1b[2K\\rx"');
    expect(printable('evil\u202egnp.js')).toBe('"evil\\u{202e}gnp.js"');
    expect(printable('a"b\\c')).toBe('"a\\"b\\\\c"');
  });
});

describe('docs/run.md', () => {
  it("lists the coding tools' settings as the registry has them", async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync(new URL('../../docs/run.md', import.meta.url), 'utf8');
    expect(doc).toContain(
      `The coding tools' settings, whose changes are always conflicts: ${projectSettingsPaths()
        .map((p) => `\`${p}\``)
        .join(', ')} (`,
    );
  });
});
