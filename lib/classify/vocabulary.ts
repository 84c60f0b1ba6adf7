// The names of every program that can make a command heavy, for the hook's hot path: a payload that names
// none of them (nor a word of the user's heavy rules) cannot hold a heavy command, so the hook answers
// "leave alone" without loading the classifier. An over-approximation, kept complete by
// test/classify/vocabulary.test.ts against every name the classifier's sources mention.

const NAMES = `
npm pnpm yarn bun npx bunx pnpx node deno make gmake mvn mvnw gradle gradlew scons
cargo cargo-nextest go golangci-lint gotestsum staticcheck dotnet swift xcodebuild bazel bazelisk buck2
mix zig dune cabal stack sbt rake rails rspec hatch uv poetry pdm rye pipenv composer php artisan phpunit pest phpstan psalm
flutter dart maturin nix pants moon rush rushx storybook build-storybook wdio stylelint
pytest py.test tox nox mypy dmypy pyright basedpyright pylint flake8
vitest jest mocha ava tap jasmine karma playwright cypress tsc vue-tsc svelte-check tsgo eslint
next nuxt nuxi astro vite ng remix react-scripts parcel webpack webpack-cli rollup tsup tsdown esbuild babel
swc microbundle unbuild turbo lerna nx c8 nyc
`;

export const HEAVY_PROGRAMS: ReadonlySet<string> = new Set(NAMES.split(/\s+/).filter(Boolean));
const PYTHON = /^(?:python[0-9.]*|pypy[0-9.]*|py)$/;
const SPLIT = /[\s;&|()<>'"`=$\\{},[\]]+/;

/** The words of the user's heavy rules (a rule names its program by its own spelling). */
export function ruleWords(heavy: readonly string[] | undefined): Set<string> {
  return new Set((heavy ?? []).flatMap((r) => r.split(/\s+/).filter(Boolean)));
}

/** False only when no word of `text` names a program that could make a command heavy. */
export function mayNameHeavy(text: string, userWords: ReadonlySet<string> = new Set()): boolean {
  for (const token of text.split(SPLIT)) {
    if (!token) continue;
    const slash = token.lastIndexOf('/');
    let name = slash < 0 ? token : token.slice(slash + 1);
    const at = name.indexOf('@', 1);
    if (at > 0) name = name.slice(0, at);
    if (HEAVY_PROGRAMS.has(name) || PYTHON.test(name) || userWords.has(token) || userWords.has(name)) return true;
  }
  return false;
}
