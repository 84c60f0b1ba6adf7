// The classifier's answer: heavy or local, the rule behind it, and (when heavy) how to wrap it.

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
   * When heavy: the original command split into what stays in the local shell around the call to sparehand
   * (`before` and `after`, e.g. an output redirect or `| tail -50`) and `inner`, the exact substring that
   * `sparehand run` receives. `before + inner + after` need not equal the command; the rewrite of the
   * command is `before + <sparehand> run --or-local -- <quoted inner> + after`.
   */
  wrap?: { before: string; inner: string; after: string };
}
