// The classifier's answer: heavy or local, the rule behind it, and (when heavy) how to wrap it.
import type { Piece } from './split.js';

/** The user's rule changes from the config (`rules.heavy` / `rules.local`): command prefixes. */
export interface RuleChanges {
  heavy?: readonly string[];
  local?: readonly string[];
}

export interface Classification {
  heavy: boolean;
  /** The rule that decided, stable text, e.g. `heavy: npm test`, `local: npm install`, `guard: already wrapped`. */
  rule: string;
  /** One sentence a person reads in `sparehand classify`. */
  reason: string;
  /**
   * When heavy: the command cut into pieces, in order, each an exact substring of it (joined, they are the
   * command). A piece with `send` goes through sparehand: the rewrite is every other piece as written and each
   * sent piece as `<sparehand> run --or-local -- <its text, single-quoted>` (`npm test && git diff` →
   * `sparehand run --or-local -- 'npm test' && git diff`).
   */
  wrap?: readonly Piece[];
}
