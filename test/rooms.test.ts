// The rooms of lib/ (ARCHITECTURE.md): each folder, and each file at lib/'s top, imports only rooms below it. Read from
// the imports themselves: no two rooms reach each other (no circle, so the rooms stack in floors), and the ways up and
// back (remote/, send/, sync/) never reach the orchestration (run/).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const lib = fileURLToPath(new URL('../lib', import.meta.url));

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The room a file of lib/ is in: its folder under lib/, or the file itself at the top. */
const roomOf = (file: string): string => {
  const rel = relative(lib, file);
  return rel.includes('/') ? (rel.split('/')[0] as string) : rel.replace(/\.[jt]s$/, '');
};

/** file → the files of lib/ it imports (static, dynamic and type-only imports: a type import is a tie too). */
function fileGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of tsFiles(lib)) {
    const to = new Set<string>();
    graph.set(file, to);
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = resolve(dirname(file), (m[1] as string).replace(/\.js$/, '.ts'));
      if (target.startsWith(`${lib}/`)) to.add(target);
    }
  }
  return graph;
}

/** room → the rooms its files import. */
function roomGraph(files: Map<string, Set<string>>): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const from = roomOf(file);
    const to = graph.get(from) ?? new Set<string>();
    graph.set(from, to);
    for (const target of targets) if (roomOf(target) !== from) to.add(roomOf(target));
  }
  return graph;
}

/** A circle of rooms, if there is one. */
function circle(graph: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (room: string): string[] | undefined => {
    if (state.get(room) === 'done') return undefined;
    if (state.get(room) === 'open') return [...path.slice(path.indexOf(room)), room];
    state.set(room, 'open');
    path.push(room);
    for (const next of graph.get(room) ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(room, 'done');
    return undefined;
  };
  for (const room of graph.keys()) {
    const found = visit(room);
    if (found) return found;
  }
  return undefined;
}

describe("lib/'s rooms", () => {
  const files = fileGraph();
  const graph = roomGraph(files);

  it('are read from the imports (the run wing and the hook wing are there, with their ways down)', () => {
    expect(graph.get('run')).toContain('remote');
    expect(graph.get('run')).toContain('send');
    expect(graph.get('hook')).toContain('classify');
    expect(graph.size).toBeGreaterThan(30);
  });

  it('import each other in no circle', () => {
    expect(circle(graph)).toBeUndefined();
  });

  it('have no circle inside either: no two files of lib/ import each other, even for a type', () => {
    expect(circle(files)?.map((f) => relative(lib, f))).toBeUndefined();
  });

  it.each(['remote', 'send', 'sync', 'state', 'watch'])('%s/ never imports run/', (room) => {
    expect(graph.get(room)).not.toContain('run');
  });

  it('finds a circle where there is one (the check itself)', () => {
    const g = new Map(graph);
    g.set('remote', new Set([...(graph.get('remote') ?? []), 'run']));
    expect(circle(g)).toBeDefined();
  });
});
