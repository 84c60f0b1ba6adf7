// The shapes of the tools' hook payloads, checked by hand: the few kinds of field a payload schema needs (objects that
// keep unknown fields, strings, literals, lists of strings, a union), with zod's results to the key (the same answer,
// the same order of fields; test/agents/payload-shape.test.ts compares them on random and mangled payloads). zod
// costs the hook a third of its heavy path to load and build (docs/performance.md); these cost nothing until used.

/** A payload shape: its description (tests turn it into the zod schema it stands for) and its check. */
export interface Shape<T> {
  readonly def: ShapeDef;
  /** As zod's safeParse: the value rebuilt (known fields first, in the shape's order, then the rest), or a failure. */
  safeParse(input: unknown): { success: true; data: T } | { success: false };
  /** The value rebuilt, or an error when it does not fit. */
  parse(input: unknown): T;
}

export type ShapeDef =
  | { kind: 'string'; pattern?: RegExp }
  | { kind: 'literal'; value: string }
  | { kind: 'unknown' }
  | { kind: 'optional'; inner: ShapeDef }
  | { kind: 'array'; element: ShapeDef }
  | { kind: 'union'; options: readonly ShapeDef[] }
  | { kind: 'looseObject'; fields: Readonly<Record<string, ShapeDef>> };

export type Infer<S> = S extends Shape<infer T> ? T : never;

const FAIL = Symbol('fail');
type Result = unknown | typeof FAIL;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function run(def: ShapeDef, input: unknown): Result {
  switch (def.kind) {
    case 'string':
      if (typeof input !== 'string') return FAIL;
      if (def.pattern) def.pattern.lastIndex = 0;
      return def.pattern && !def.pattern.test(input) ? FAIL : input;
    case 'literal':
      return input === def.value ? input : FAIL;
    case 'unknown':
      return input;
    case 'optional':
      return input === undefined ? undefined : run(def.inner, input);
    case 'array': {
      if (!Array.isArray(input)) return FAIL;
      const out: unknown[] = [];
      for (const item of input) {
        const r = run(def.element, item);
        if (r === FAIL) return FAIL;
        out.push(r);
      }
      return out;
    }
    case 'union':
      for (const option of def.options) {
        const r = run(option, input);
        if (r !== FAIL) return r;
      }
      return FAIL;
    case 'looseObject':
      return looseObjectOf(def.fields, input);
  }
}

/** zod's loose object: each known field (a missing optional one left out), then every other field as it was. */
function looseObjectOf(fields: Readonly<Record<string, ShapeDef>>, input: unknown): Result {
  if (!isObject(input)) return FAIL;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) {
    if (key === '__proto__') continue;
    const def = fields[key]!;
    const present = key in input;
    if (!present && def.kind === 'optional') continue;
    if (!present) return FAIL;
    const r = run(def, input[key]);
    if (r === FAIL) return FAIL;
    out[key] = r;
  }
  for (const key in input) {
    // An own __proto__ field (JSON.parse makes one) is not copied: assigning it would replace out's prototype.
    if (Object.hasOwn(fields, key) || key === '__proto__') continue;
    out[key] = input[key];
  }
  return out;
}

function shape<T>(def: ShapeDef): Shape<T> {
  const safeParse = (input: unknown): { success: true; data: T } | { success: false } => {
    const r = run(def, input);
    return r === FAIL ? { success: false } : { success: true, data: r as T };
  };
  return {
    def,
    safeParse,
    parse: (input) => {
      const r = safeParse(input);
      if (!r.success) throw new Error(`does not fit the ${def.kind} shape`);
      return r.data;
    },
  };
}

export const string = (pattern?: RegExp): Shape<string> => shape(pattern ? { kind: 'string', pattern } : { kind: 'string' });
export const literal = <L extends string>(value: L): Shape<L> => shape({ kind: 'literal', value });
export const unknown = (): Shape<unknown> => shape({ kind: 'unknown' });
export const optional = <T>(inner: Shape<T>): Shape<T | undefined> => shape({ kind: 'optional', inner: inner.def });
export const array = <T>(element: Shape<T>): Shape<T[]> => shape({ kind: 'array', element: element.def });
/** The first of `options` that fits (zod's union). */
export const union = <S extends readonly Shape<unknown>[]>(options: S): Shape<Infer<S[number]>> => shape({ kind: 'union', options: options.map((o) => o.def) });

type Fields = Record<string, Shape<unknown>>;
type OptionalKeys<F extends Fields> = { [K in keyof F]: undefined extends Infer<F[K]> ? K : never }[keyof F];
type ObjectOf<F extends Fields> = { [K in Exclude<keyof F, OptionalKeys<F>>]: Infer<F[K]> } & {
  [K in OptionalKeys<F>]?: Infer<F[K]>;
} & Record<string, unknown>;

/** An object with these fields that keeps every other field it has (a tool's input is echoed back whole). */
export const looseObject = <F extends Fields>(fields: F): Shape<{ [K in keyof ObjectOf<F>]: ObjectOf<F>[K] }> =>
  shape({ kind: 'looseObject', fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.def])) });
