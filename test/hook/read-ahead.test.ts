// The stand-ins of node's modules in the bundle that runs where there is no node (lib/hook/read-ahead/): node:path's
// answers are node's own, for random paths; node:fs's are served from what was read ahead, and a read of something
// not read ahead is noted (the runner reads it and runs again).
import { posix } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as standIn from '../../lib/hook/read-ahead/node-path.js';
import { existsSync, readFileSync, readdirSync, statSync } from '../../lib/hook/read-ahead/node-fs.js';
import { world } from '../../lib/hook/read-ahead/world.js';

const part = fc.constantFrom('a', 'bc', '.', '..', '', 'x.y', '.z', 'q.');
const path = fc.array(part, { maxLength: 6 }).chain((parts) => fc.boolean().map((abs) => `${abs ? '/' : ''}${parts.join('/')}`));
const paths = fc.array(path, { minLength: 1, maxLength: 4 });

describe('node:path, stood in', () => {
  it('answers as node does, for random paths', () => {
    world.cwd = '/w/x';
    fc.assert(
      fc.property(paths, (ps) => {
        const [a, b = '.'] = ps;
        const got = {
          join: standIn.join(...ps),
          resolve: standIn.resolve(...ps),
          normalize: standIn.normalize(a!),
          dirname: standIn.dirname(a!),
          basename: standIn.basename(a!),
          extname: standIn.extname(a!),
          relative: standIn.relative(a!, b),
          isAbsolute: standIn.isAbsolute(a!),
        };
        expect(got).toEqual({
          join: posix.join(...ps),
          resolve: posix.resolve('/w/x', ...ps),
          normalize: posix.normalize(a!),
          dirname: posix.dirname(a!),
          basename: posix.basename(a!),
          extname: posix.extname(a!),
          relative: posix.relative(posix.resolve('/w/x', a!), posix.resolve('/w/x', b)),
          isAbsolute: posix.isAbsolute(a!),
        });
      }),
      { numRuns: 3000 },
    );
  });
});

describe('node:fs, stood in', () => {
  it('serves what was read ahead, and notes what was not', () => {
    world.cwd = '/w';
    world.known = new Map([
      ['/w/a.json', { text: { value: '{"x":1}' }, stat: { value: { kind: 'file', size: 7, mtimeMs: 1 } } }],
      ['/w/gone', { text: { error: 'ENOENT' }, stat: { error: 'ENOENT' } }],
      ['/w', { list: { value: ['a.json'] }, stat: { value: { kind: 'dir', size: 0, mtimeMs: 1 } } }],
    ]);
    world.asked.clear();
    world.missed.clear();
    world.written.clear();
    expect(readFileSync('a.json', 'utf8')).toBe('{"x":1}');
    expect(statSync('/w/a.json')?.isFile()).toBe(true);
    expect(statSync('/w')?.isDirectory()).toBe(true);
    expect(readdirSync('/w')).toEqual(['a.json']);
    expect([existsSync('/w/gone'), existsSync('/w/unread')]).toEqual([false, false]);
    expect(() => readFileSync('/w/gone', 'utf8')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect([...world.missed]).toEqual(['stat\0/w/unread']);
  });
});
