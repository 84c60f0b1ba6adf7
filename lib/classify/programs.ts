// The programs a command starts, as far as the text tells: what `sparehand run` asks the worker to have before
// the command starts there (`cargo test && git diff` → cargo, git; `timeout 60 pytest` → timeout, pytest).
import { isLiteral } from './lex.js';
import { type ListItem, parse } from './parse.js';
import { commandStart, isRunner } from './wrappers.js';

/**
 * Each program named literally at the start of a simple command (and the command a wrapper such as `timeout` or
 * `env` runs), in order, once. A launcher's command (`uv run pytest`, `bundle exec rspec`) runs in the
 * environment the launcher makes, so only the launcher counts. Empty when the command cannot be followed.
 */
export function programsOf(command: string): string[] {
  let items: ListItem[];
  try {
    items = parse(command);
  } catch {
    return [];
  }
  const out = new Set<string>();
  const walk = (list: readonly ListItem[]) => {
    for (const item of list) {
      for (const c of item.pipeline.commands) {
        if (c.kind === 'subshell') {
          walk(c.body);
          continue;
        }
        let words = c.words;
        while (words.length > 0 && isLiteral(words[0] as (typeof words)[0])) {
          const argv = words.map((w) => w.value);
          out.add(argv[0] as string);
          if (isRunner(argv[0] as string)) break;
          const next = commandStart(argv);
          if (next <= 0) break;
          words = words.slice(next);
        }
      }
    }
  };
  walk(items);
  return [...out];
}
