import { projectSettingsPaths } from '../agents/project-settings.js';
import type { Context } from '../context.js';
import type { ExecResult } from '../remote/session.js';
import { notBroughtBack, underMatcher } from '../remote/sync-rules.js';
import type { Fingerprint } from '../send/fingerprint-parts.js';
import { ctimeNow, keepWarm } from '../send/warm-kept.js';
import { printable } from '../safe-text.js';
import { type Ancestor, afterRun, emptyAncestor, mineIndex, saveAncestor } from '../sync/ancestor.js';
import { type Applied, applyChanges, contentNeeded } from '../sync/apply.js';
import type { Change } from '../remote/change.js';
import { isToolSettings, refusedPath } from '../sync/guard.js';
import { refusedChains } from '../sync/link-chain.js';
import { makeConflictsFolder, ownFolder } from '../state/own-folder.js';
import { ignoredAmong } from '../send/sent.js';
import { foreignCheck } from './foreign.js';
import { mineBefore } from './shard-mine.js';
import { type Prepared, foldsCaseHere, sameFolder } from './remote-prepare.js';
import type { RunAttempt } from './remote-attempt.js';

/**
 * Checks the command's changes and applies them here (lib/sync/apply.ts), then remembers what the copy and this
 * machine hold (the ancestor). Nothing is written when the project folder is gone or sparehand's folder cannot be
 * used: one line says so and where the files are.
 */
export async function bringBack(ctx: Context, run: Prepared, at: RunAttempt, base: Ancestor, result: ExecResult, there: string): Promise<Applied> {
  const { root } = run;
  const changes = result.report.changes;
  const none: Applied = { files: 0, touched: 0, bytes: 0, byFolder: new Map(), conflicts: [], kept: [], notes: [], outcomes: new Map() };
  if (changes.length === 0) {
    saveAncestor(root, at.copy, { ...(result.ancestor === 'same' ? base : emptyAncestor()), gen: at.job.newgen });
    return none;
  }
  const gone = !sameFolder(root, run.rootId) ? 'the project folder was moved or deleted during the run' : undefined;
  const own = gone ? undefined : ownFolder(root);
  const why = gone ?? (own && 'why' in own ? `sparehand's folder here is refused: ${own.why}` : undefined);
  if (why) return { ...none, conflicts: [{ kind: 'no-root', path: '.', detail: why, there }] };

  const ignored = await ignoredAmong(
    root,
    changes.map((c) => c.path),
    ctx.env,
  );
  const notSent = (p: string) => ignored.has(p);
  // A shard never takes what its sibling shards wrote for its own to replace (lib/run/shard-mine.ts).
  const mine = run.shard ? mineBefore(root, run.startedAt) : mineIndex(root);
  const settings = projectSettingsPaths();
  // What the worker claims it skipped is checked here again: never a secret, a dependency folder or a cache.
  const never = underMatcher(notBroughtBack(run.config));
  const neverBack = (c: Change) => (never(c.path, c.type) ? 'it is a secret, a dependency folder or a cache, which never come back' : undefined);
  const ancestor = result.ancestor === 'same' ? base : emptyAncestor();
  const foreign = foreignCheck(ctx, at.target.worker, result.platform);
  // Links are judged by where their whole chain ends, through the project as it will be after the apply.
  const chains = refusedChains(changes, root);
  const known = (c: Change) => ({
    sent: !notSent(c.path),
    mine: mine(c.path),
    // (A deleted link has no target to judge: it is deleted as a file is.)
    refused: refusedPath(c.path) ?? chains.get(c.index) ?? neverBack(c),
    settings: isToolSettings(c.path, settings),
    foreign: foreign(c),
    keptThere: ancestor.paths[c.path]?.k === 1,
  });
  const wanted = at.tty ? [] : contentNeeded(changes, { root, known });
  if (wanted.length > 0) await at.session.fetch(wanted);
  let conflicts: string | undefined;
  let folds: boolean | undefined;
  const applied = applyChanges(changes, {
    root,
    conflictsDir: () => (conflicts ??= makeConflictsFolder(root, run.startedAt, run.nonce)),
    scratch: () => run.staging.dir() ?? root,
    foldsCase: () => (folds ??= foldsCaseHere(run)),
    known,
    there,
    printable,
  });
  saveAncestor(root, at.copy, afterRun(ancestor, root, changes, applied.outcomes, { notSent, never }, at.job.newgen));
  return applied;
}

/**
 * Keeps the fingerprint for the next run (warm-send.ts) when every change the command made was applied here: then
 * the copy holds what this project holds. A conflict, a refusal, a file kept there or not written here: nothing kept.
 */
export async function keepFingerprint(run: Prepared, at: RunAttempt, before: Fingerprint, result: ExecResult, back: Applied): Promise<void> {
  const changes = result.report.changes;
  const whole = back.conflicts.length === 0 && back.kept.length === 0 && changes.every((c) => ['applied', 'same'].includes(back.outcomes.get(c.index) ?? ''));
  if (!whole) return;
  const own = ownFolder(run.root, 'sync');
  if ('why' in own) return;
  const by = changes.length === 0 ? 0 : await ctimeNow(own.dir);
  keepWarm(run.root, at.copy, at.job.newgen, before, changes, by);
}
