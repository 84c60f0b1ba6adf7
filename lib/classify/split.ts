// How a heavy command line is rewritten (SPEC "What is heavy"): its heavy parts go through `sparehand run`, the
// parts that must stay here run here, in the same order with the same `&&`/`||`/`;`, redirects and pipes where
// they were. Every piece is an exact substring of the command; the pieces joined are the command.
import type { Verdict } from './kinds.js';
import type { Word } from './lex.js';
import type { ListItem, Pipeline } from './parse.js';
import { type Facts, runsBuilt } from './built-outputs.js';
import { createsFiles, leavesForUnnamedFolder, type Role, roleOf } from './roles.js';
import { BACKGROUND, commandProblem, hasHeavy, label, listProblem, type NoCut, simpleProblem, type Verdicts } from './worker-safe.js';
import { APPENDS, type Edit, movesStderr, stderrKept } from './stderr-redirects.js';
import { wordsOutside } from './wrappers.js';

/** A piece of the command's text: kept as written (runs here) or handed to `sparehand run --or-local --`. */
export interface Piece {
  text: string;
  send: boolean;
  /**
   * Moved into the sent piece before it (at its end): `npm test > x.log 2>&1` is sent as `npm test 2>&1`, with
   * `> x.log` here, so the command's stderr joins its stdout in the file and sparehand's own lines do not.
   */
  into?: boolean;
  /** Written so in the rewrite in place of `text` (`|&` → `|`, `&> f` → `> f`, an added ` 2>&1`). */
  as?: string;
}

/**
 * The pieces (with the names of the parts that stay here, and of those that go with the heavy part because they
 * run what it builds on a worker of another platform), or why nothing can go: a part's verdict, or a problem.
 */
export type Split = { pieces: Piece[]; here: string[]; along?: string[] } | { verdict: Verdict } | { problem: NoCut };

/** A stretch of the command sent as one call: from `start` to `end` (offsets), items `from`..`to`. */
interface Sent {
  from: number;
  to: number;
  start: number;
  end: number;
  /** Stretches after `end` moved inside it or written otherwise (Piece.into, Piece.as), in order. */
  edits?: ReadonlyArray<{ start: number; end: number; into?: boolean; as?: string }>;
}

const SEPARATORS = new Set(['', ';', '\n']);

/**
 * May a group that follows `before` (the operator in front of it, '' at the start) hold `operator` inside?
 * `a && b || c` is `(a && b) || c`: after a separator any prefix of the rest can be one call; after `&&`
 * (or `||`) only a run of the same operator, or a failed `a` would skip what the original ran.
 */
const joins = (operator: string, before: string, endsInBackground: boolean): boolean =>
  operator !== '&' && (SEPARATORS.has(before) ? !(endsInBackground && SEPARATORS.has(operator)) : operator === before);

/** Splits the command into pieces (see the file's first line), or says why no part can be sent. */
export function split(src: string, items: readonly ListItem[], judged: Verdicts, facts: Facts = {}): Split {
  const last = items.length - 1;
  if (last === 0) return single(src, items[0] as ListItem, judged);
  // A job put in the background in the middle would run beside a part on the worker: not followed.
  if (items.some((item, i) => item.operator === '&' && i < last)) return { problem: BACKGROUND };
  const endsInBackground = (items[last] as ListItem).operator === '&';
  const roles = items.map((item) => roleOf(item.pipeline, judged));
  const { verdicts, built } = runsAlong(items, roles, judged, facts);
  const sent: Sent[] = [];
  let stop: Split | undefined;
  for (let i = 0; i <= last && !stop; ) {
    const role = roles[i] as Role;
    if (role === 'here') stop = hereReason(items[i] as ListItem, verdicts);
    if (role === 'here' || role === 'cd') {
      i++;
      continue;
    }
    // The longest run of parts that could go as one call; it ends at its last heavy part unless nothing follows.
    const before = i === 0 ? '' : (items[i - 1] as ListItem).operator;
    let j = i;
    while (j < last && isSendable(roles[j + 1] as Role) && joins((items[j] as ListItem).operator, before, endsInBackground)) j++;
    const lastHeavy = roles.lastIndexOf('heavy', j);
    if (lastHeavy < i) {
      i = j + 1;
      continue;
    }
    // A part that runs what the heavy part builds goes with it (`make && ./a.out && npm start`: both, or neither).
    const to = j === last ? j : Math.max(lastHeavy, roles.lastIndexOf('output', j));
    const group = items.slice(i, to + 1);
    if (to > i && !listProblem(group, verdicts, endsInBackground)) {
      sent.push({ from: i, to, start: (group[0] as ListItem).pipeline.start, end: (group[group.length - 1] as ListItem).pipeline.end });
    } else {
      // One part at a time: each heavy part cut on its own, the light ones here.
      for (let k = i; k <= to && !stop; k++) {
        if (roles[k] !== 'heavy') continue;
        const c = cutPipeline(src, (items[k] as ListItem).pipeline, verdicts);
        if ('rule' in c) stop = { problem: c };
        else sent.push({ from: k, to: k, ...c });
      }
    }
    i = to + 1;
  }
  if (sent.length === 0) return stop ?? { problem: { rule: 'none', why: 'has no part that can go' } };
  const problem = splitProblem(items, roles, sent) ?? builtApart(roles, sent, built, facts);
  if (problem) return { problem };
  const along = [...built.values()];
  return { pieces: pieces(src, sent), here: hereLabels(items, roles, sent), ...(along.length ? { along } : {}) };
}

/**
 * With a worker of another platform: the parts after a heavy one that run what a build may have made get the role
 * `output` (they go with the heavy part, or the command stays here), and a verdict that lets them go with it.
 * Returns the verdicts to cut by, and those parts' programs by index.
 */
function runsAlong(items: readonly ListItem[], roles: Role[], judged: Verdicts, facts: Facts): { verdicts: Verdicts; built: Map<number, string> } {
  const built = new Map<number, string>();
  if (!facts.otherPlatform) return { verdicts: judged, built };
  const verdicts: Verdicts = new Map(judged);
  for (const [k, item] of items.entries()) {
    if (!roles.slice(0, k).includes('heavy') || roles[k] === 'heavy' || roles[k] === 'cd') continue;
    const run = runsBuilt(item.pipeline);
    if (!run) continue;
    built.set(k, run.program);
    roles[k] = 'output';
    verdicts.set(run.command, { kind: 'light', rule: `light: runs what the build made: ${run.program}`, why: 'runs what the heavy part before it builds' });
  }
  return { verdicts, built };
}

/** A part that runs what the heavy part builds, cut apart from it: on a worker of another platform, that is no split. */
function builtApart(roles: readonly Role[], sent: readonly Sent[], built: ReadonlyMap<number, string>, facts: Facts): NoCut | undefined {
  for (const [k, program] of built) {
    const group = sent.find((s) => s.from <= k && k <= s.to);
    if (group && roles.slice(group.from, k).includes('heavy')) continue;
    const p = facts.otherPlatform as { here: string; worker: string };
    return {
      rule: `local: runs what the worker would build: ${program}`,
      why: `runs ${program} after building it, and cannot go to the worker with the build, whose platform (${p.worker}) is not this machine's (${p.here}): what the worker builds stays there, so ${program} would not be the one just built`,
    };
  }
  return undefined;
}

// One pipeline (the usual case): its heavy first command goes, or it stays here.
function single(src: string, item: ListItem, verdicts: Verdicts): Split {
  if (roleOf(item.pipeline, verdicts) === 'here') return hereReason(item, verdicts);
  const c = cutPipeline(src, item.pipeline, verdicts);
  return 'rule' in c ? { problem: c } : { pieces: pieces(src, [{ from: 0, to: 0, ...c }]), here: [] };
}

const isSendable = (r: Role): boolean => r === 'heavy' || r === 'light' || r === 'shell' || r === 'output';

// Why a part that must stay here keeps everything after it here too.
function hereReason(item: ListItem, verdicts: Verdicts): Split {
  for (const c of item.pipeline.commands) {
    if (c.kind !== 'simple') continue;
    const v = verdicts.get(c);
    if (v?.kind === 'local') return { verdict: v };
  }
  const problem = listProblem([item], verdicts, true);
  return problem ? { problem } : { problem: { rule: 'none', why: 'has no part that can go' } };
}

// What splitting here would change: a shell change on one side only, a file made here before a heavy part,
// a heavy part started in a folder the command does not name.
function splitProblem(items: readonly ListItem[], roles: readonly Role[], sent: readonly Sent[]): NoCut | undefined {
  const lastSentEnd = (sent[sent.length - 1] as Sent).to;
  for (const [k, item] of items.entries()) {
    const role = roles[k] as Role;
    const p = item.pipeline;
    const group = sent.find((s) => s.from <= k && k <= s.to);
    if (group) {
      if (role === 'shell' && group.to < items.length - 1) return shellProblem(p);
      continue;
    }
    if (k > lastSentEnd) break;
    if (role === 'shell') return shellProblem(p);
    if (role === 'cd' && leavesForUnnamedFolder(p)) return { rule: 'local: cd outside the project', why: 'changes to a folder that is not on the worker' };
    const creates = role === 'light' ? createsFiles(p) : undefined;
    if (creates) {
      return {
        rule: `local: creates files before the heavy part: ${creates}`,
        why: `creates files here (${creates}) before the heavy part, and an ignored file would not reach the worker`,
      };
    }
  }
  return undefined;
}

const shellProblem = (p: Pipeline): NoCut => {
  const name = p.commands[0]?.kind === 'simple' ? label(p.commands[0]).split(' ')[0] || 'assignment' : 'assignment';
  return { rule: `local: changes the shell: ${name}`, why: `runs ${name}, and its change to the shell would reach only one side of a split` };
};

/**
 * One pipeline cut on its own: `time`, `!`, `timeout …`, `noglob` stay outside before the heavy command;
 * output redirects after its last word and the pipes after it stay outside (an input redirect, or a
 * redirect among the words, takes them all inside). The heavy command must be the pipeline's first.
 */
type Cut = { start: number; end: number; edits?: Edit[] };

function cutPipeline(src: string, p: Pipeline, verdicts: Verdicts): Cut | NoCut {
  const core = p.commands[0] as Pipeline['commands'][number];
  if (!hasHeavy(core, verdicts)) return { rule: 'local: heavy part reads a pipe', why: 'reads its input from a pipe that stays here' };
  let start = p.commandStart;
  let end: number;
  let problem: NoCut | undefined;
  // Where the command's stderr goes is decided inside the run: sparehand's own lines (its summary) stay on the
  // tool's stderr, out of the file or pipe the command's stderr goes to (`npm test 2>&1 | tail -1`).
  const input = core.redirects.some((r) => r.operator.startsWith('<'));
  const before = core.kind === 'simple' ? core.redirectBeforeWord : false;
  const piped = p.pipes[0]?.value === '|&' ? p.pipes[0] : undefined;
  const kept = input || before || piped ? undefined : stderrKept(src, core.redirects);
  const from = core.kind === 'simple' && core.assignments.length === 0 ? wordsOutside(core.words.map((w) => w.value)) : 0;
  if (from > 0 && core.kind === 'simple') start = (core.words[from] as Word).start;
  if (kept) {
    // `> x.log 2>&1`, `&> x.log`: the file stays here, a `2>&1` goes inside.
    const cmdEnd = core.kind === 'simple' ? ((core.words[core.words.length - 1] as Word | undefined)?.end ?? core.end) : core.closeEnd;
    problem = core.kind === 'simple' ? simpleProblem(core, verdicts, from, []) : commandProblem({ ...core, redirects: [] }, verdicts);
    const edits = kept.map((e) => (e.start < 0 ? { ...e, start: cmdEnd } : e));
    return problem ?? { start, end: cmdEnd, edits };
  }
  const stderr = piped !== undefined || core.redirects.some(movesStderr);
  if (stderr && core.redirects.some((r) => r.operator.endsWith('>>'))) return APPENDS;
  const allInside = stderr || before || input;
  if (core.kind === 'simple') {
    end = allInside ? core.end : (core.words[core.words.length - 1] as Word).end;
    problem = simpleProblem(core, verdicts, from, allInside ? core.redirects : []);
  } else {
    end = allInside ? core.end : core.closeEnd;
    problem = commandProblem(allInside ? core : { ...core, redirects: [] }, verdicts);
  }
  if (problem) return problem;
  // `npm test |& tail -1` is `npm test 2>&1 | tail -1`: the `2>&1` inside, a plain pipe here.
  const edits: Edit[] | undefined = piped && [
    { start: end, end, into: true, as: ' 2>&1' },
    { start: piped.start, end: piped.start + 2, as: '|' },
  ];
  return { start, end, ...(edits ? { edits } : {}) };
}

function pieces(src: string, sent: readonly Sent[]): Piece[] {
  const out: Piece[] = [];
  let at = 0;
  for (const s of sent) {
    if (s.start > at) out.push({ text: src.slice(at, s.start), send: false });
    out.push({ text: src.slice(s.start, s.end), send: true });
    at = s.end;
    for (const e of s.edits ?? []) {
      if (e.start > at) out.push({ text: src.slice(at, e.start), send: false });
      out.push({ text: src.slice(e.start, e.end), send: false, ...(e.into ? { into: true } : {}), ...(e.as === undefined ? {} : { as: e.as }) });
      at = e.end;
    }
  }
  if (at < src.length) out.push({ text: src.slice(at), send: false });
  return out;
}

// The parts other than `cd` that run here, named by their first words (`git diff`, `npm start`).
function hereLabels(items: readonly ListItem[], roles: readonly Role[], sent: readonly Sent[]): string[] {
  const out: string[] = [];
  let next = 0;
  for (const [k, item] of items.entries()) {
    while (next < sent.length && (sent[next] as Sent).to < k) next++;
    const s = sent[next];
    if (roles[k] === 'cd' || (s !== undefined && s.from <= k)) continue;
    const c = item.pipeline.commands[0];
    out.push(c?.kind === 'simple' ? label(c) : '(…)');
  }
  return out;
}
