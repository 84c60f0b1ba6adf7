// The tools' payload shapes are checked by hand (lib/agents/payload-shape.ts) where zod checked them: for every tool,
// on its own payloads, mutations of them and random values, the hand check says what zod says, and rebuilds the same
// value with its fields in the same order (the rewrite echoes them back).
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { allAgents } from '../../lib/agents/index.js';
import type { ShapeDef } from '../../lib/agents/payload-shape.js';
import { FIXTURES } from '../helpers/fixtures.js';

/** The zod schema a shape stands for (what the tools' payload schemas were). */
function toZod(def: ShapeDef): z.ZodMiniType {
  switch (def.kind) {
    case 'string':
      return def.pattern ? z.string().check(z.regex(def.pattern)) : z.string();
    case 'literal':
      return z.literal(def.value);
    case 'unknown':
      return z.unknown();
    case 'optional':
      return z.optional(toZod(def.inner));
    case 'array':
      return z.array(toZod(def.element));
    case 'union':
      return z.union(def.options.map(toZod) as [z.ZodMiniType, z.ZodMiniType]);
    case 'looseObject':
      return z.looseObject(Object.fromEntries(Object.entries(def.fields).map(([k, v]) => [k, toZod(v)])));
  }
}

/** What a parse gives, comparable: success, and the value with its keys in order. */
const outcome = (r: { success: boolean; data?: unknown }) => (r.success ? `ok ${JSON.stringify(r.data)}` : 'fail');

const hooked = allAgents().filter((a) => a.payload !== undefined);
const fixture = (id: string): unknown => JSON.parse(readFileSync(`${FIXTURES}agents/${id}/payload.json`, 'utf8'));

/** A value's fields dropped, retyped, reordered or added to, at any depth. */
const mutate = (value: unknown): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(value) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.constantFrom(null, 0, '', 'PreToolUse', 'preToolUse', 'pre_tool', [], {}, ['x'], [1], true) },
    {
      weight: 2,
      arbitrary:
        typeof value === 'object' && value !== null && !Array.isArray(value)
          ? fc
              .tuple(
                fc.tuple(...Object.entries(value).map(([k, v]) => fc.tuple(fc.constant(k), fc.boolean(), mutate(v)))),
                fc.dictionary(fc.constantFrom('extra', 'command', 'cmd', '__proto__', 'constructor', '0'), fc.jsonValue({ maxDepth: 1 })),
                fc.boolean(),
              )
              .map(([entries, extra, reverse]) => {
                const kept = entries.filter(([, keep]) => keep).map(([k, , v]) => [k, v] as const);
                // Through JSON text, as the hook gets it: a "__proto__" field is then an own field.
                return JSON.parse(JSON.stringify(Object.fromEntries([...(reverse ? kept.reverse() : kept), ...Object.entries(extra)])));
              })
          : fc.constant(value),
    },
  );

describe.each(hooked.map((a) => [a.id, a] as const))('%s: the hand check of its payload is zod’s', (_id, a) => {
  const shape = a.payload!();
  const schema = toZod(shape.def);

  it('on its own payload and sample', () => {
    for (const p of [fixture(a.id), a.samplePayload?.('npm test', '/home/dev/app')]) {
      if (p === undefined) continue;
      expect(outcome(shape.safeParse(p))).toBe(outcome(schema.safeParse(p)));
      expect(shape.safeParse(p).success).toBe(true);
    }
  });

  it('on mutations of it and on random values', () => {
    fc.assert(
      fc.property(fc.oneof(mutate(fixture(a.id)), fc.jsonValue({ maxDepth: 3 })), (p) => {
        expect(outcome(shape.safeParse(p))).toBe(outcome(schema.safeParse(p)));
      }),
      { numRuns: 1500 },
    );
  });
});
