// Chains that run what they just built, when a worker's platform is not this machine's (issue 22): whole on the
// worker, or whole here, never split; the same chains on one platform split as before.
import { describe, expect, it } from 'vitest';
import { type Facts, classify, rewriteCommand } from '../../lib/classify/index.js';

const OTHER: Facts = { otherPlatform: { here: 'macOS arm64', worker: 'Linux x86-64' } };
const rewrite = (command: string, facts: Facts = {}): string | null => {
  const c = classify(command, {}, facts);
  return c.wrap ? rewriteCommand(c, 'sparehand') : null;
};

describe('a worker of another platform', () => {
  it.each([
    ['go build -o app && ./app --selftest', "sparehand run --or-local -- 'go build -o app && ./app --selftest'"],
    ['cargo build && ./target/debug/x', "sparehand run --or-local -- 'cargo build && ./target/debug/x'"],
    ['make && ./a.out', "sparehand run --or-local -- 'make && ./a.out'"],
    ['cargo build --release; timeout 30 ./target/release/app', "sparehand run --or-local -- 'cargo build --release; timeout 30 ./target/release/app'"],
    ['cd pkg && make && ./a.out', "cd pkg && sparehand run --or-local -- 'make && ./a.out'"],
    // The part that runs the build goes with it; what follows and must stay here still does.
    ['make && ./a.out && npm start', "sparehand run --or-local -- 'make && ./a.out' && npm start"],
    ['make && ./a.out; git diff', "sparehand run --or-local -- 'make && ./a.out'; git diff"],
  ])('%s runs whole on the worker (on one platform: split as ever)', (command, expected) => {
    expect(rewrite(command, OTHER)).toBe(expected);
    expect(rewrite(command)).not.toBe(expected);
    expect(classify(command, {}, OTHER).reason).toContain(
      "goes with it, as it runs what it builds and the worker's platform (Linux x86-64) is not this machine's (macOS arm64)",
    );
  });

  it.each([
    ['make && ./a.out --config ~/a.toml', './a.out'],
    ['cargo build && ./target/debug/x | less', './target/debug/x'],
    ['make && ./a.out > /tmp/out.txt', './a.out'],
    ['cd x && cargo build || ./target/debug/x', './target/debug/x'],
  ])('%s stays here whole: the part that runs %s cannot go with the build (on one platform: split as ever)', (command, program) => {
    const c = classify(command, {}, OTHER);
    expect([c.heavy, c.rule]).toEqual([false, `local: runs what the worker would build: ${program}`]);
    expect(c.reason).toContain("whose platform (Linux x86-64) is not this machine's (macOS arm64)");
    expect(classify(command).heavy).toBe(true);
  });

  it("a script, a build tool's wrapper or an installed program is no output: split as on one platform, while a build's program is", () => {
    for (const command of [
      'npm test && ./scripts/check.sh',
      'make && ./configure',
      'npm run build && ./node_modules/.bin/size-limit',
      'make && git diff',
      './a.out && make',
    ]) {
      expect(rewrite(command, OTHER), command).toBe(rewrite(command));
    }
    expect(rewrite('make && ./check', OTHER)).toBe("sparehand run --or-local -- 'make && ./check'");
  });
});
