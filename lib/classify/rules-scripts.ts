// A project's scripts by their names (package.json, deno.json tasks, hatch/pdm scripts, monorepo tasks):
// `test:unit`, `build-prod`, `jest` are heavy; `dev`, `test:watch` must stay here; other names are not known.
import { type Category, heavy, local, NONE, table, type Verdict, watching } from './kinds.js';

const HEAVY_SCRIPT = table<Category>({
  test: 'tests',
  tests: 'tests',
  spec: 'tests',
  specs: 'tests',
  unit: 'tests',
  integration: 'tests',
  e2e: 'tests',
  coverage: 'tests',
  cover: 'tests',
  ci: 'tests',
  build: 'build',
  compile: 'build',
  bundle: 'build',
  dist: 'build',
  lint: 'lint',
  typecheck: 'types',
  tsc: 'types',
  types: 'types',
  type: 'types',
  ts: 'types',
  check: 'check',
  verify: 'check',
  validate: 'check',
  bench: 'bench',
  benchmark: 'bench',
  rebuild: 'build',
  // named after the tool they run
  jest: 'tests',
  vitest: 'tests',
  mocha: 'tests',
  ava: 'tests',
  jasmine: 'tests',
  playwright: 'tests',
  wdio: 'tests',
  eslint: 'lint',
  stylelint: 'lint',
  'vue-tsc': 'types',
  'svelte-check': 'types',
  tsgo: 'types',
});
const LOCAL_SCRIPT = table<Category>({
  dev: 'server',
  develop: 'server',
  start: 'server',
  serve: 'server',
  server: 'server',
  preview: 'server',
  storybook: 'server',
  open: 'server',
  watch: 'watch',
  tdd: 'watch',
  deploy: 'world',
  release: 'world',
  publish: 'world',
  docker: 'world',
  install: 'install',
  setup: 'install',
  bootstrap: 'install',
  clean: 'clean',
});
const SCRIPT_SPLIT = /[:\-_./]/;
const PRE_POST = /^(pre|post)(?=.)/;

/**
 * A package.json script by its name: `test:unit`, `build-prod` heavy; `dev`, `test:watch` local; others unknown.
 * `rest` are the words after the name; `passedOn` those the script receives (npm: after `--`), where a `-w`
 * is a watch flag too (unless a number follows: jest's `-w 4` is its worker count).
 */
export function script(label: string, name: string, rest: readonly string[], passedOn: readonly string[] = rest): Verdict {
  const segs = name.toLowerCase().split(SCRIPT_SPLIT);
  for (const s of segs) {
    const cat = LOCAL_SCRIPT.get(s);
    if (cat) return local(label, cat);
  }
  const first = (segs[0] ?? '').replace(PRE_POST, '');
  const cat = HEAVY_SCRIPT.get(name.toLowerCase()) ?? HEAVY_SCRIPT.get(first) ?? HEAVY_SCRIPT.get(segs[0] ?? '');
  if (!cat) return NONE;
  const w = watching(rest) ?? dashW(passedOn);
  return w ? local(`${label} ${w}`, 'watch') : heavy(label, cat);
}

const dashW = (args: readonly string[]): string | undefined => {
  const i = args.indexOf('-w');
  return i >= 0 && !/^[0-9]/.test(args[i + 1] ?? '') ? '-w' : undefined;
};
/** The words npm hands a script: those after `--`. */
export const afterDashDash = (args: readonly string[]): readonly string[] => {
  const i = args.indexOf('--');
  return i < 0 ? [] : args.slice(i + 1);
};
