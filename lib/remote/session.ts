// The ssh session a run lives in (the worker program: lib/remote/worker/). It claims a slot, waits while the
// project is sent, takes sparehand's own changes to the copy, runs the command (its output streamed live from
// `out` frames, signals passed on as `sig` frames), and reads the report of what the command changed. With a
// terminal, the command runs in a second session (ssh -tt) while this one holds the slot and passes on the
// report that session left on the worker.
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { Transform } from 'node:stream';
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';
import { exitStatus, start } from '../process.js';
import type { Platform } from '../platform/platform.js';
import { ReportReader, type Staging } from './report-reader.js';
import { type Frame, FrameReader, frame, sessionKey } from './frames.js';
import { type Claimed, type CopyState, FRAMES, type FrameType, unfitFromWorker } from './protocol.js';
import { type Job, jobFrame } from './job.js';
import { RootRewriter, rewrittenOutput, rootRewriteStream, rootsOf } from './root-rewrite.js';
import { programPreamble } from './worker/program.js';
import { printableSentence } from '../safe-text.js';

/** How the run tells a stage about a signal sparehand received (`again`: not the first one). */
export interface SignalSource {
  react(reaction: ((sig: NodeJS.Signals, again: boolean) => void) | undefined): void;
}

/** What ends a wait on the worker besides its answer: the run's deadline (Date.now() time) and a signal. */
export interface Bound {
  deadline?: number | undefined;
  signals?: SignalSource | undefined;
}

export type { Claimed, CopyState } from './protocol.js';

/** sparehand's own change to the worker's copy before the command (lib/sync/ancestor.ts). */
export type OwnChange = { op: 'del'; path: string } | { op: 'put'; path: string; mode: number; mtime: number; content: Buffer };

export interface ExecResult {
  /** ssh's own exit status (the terminal session's, in terminal mode). */
  sshStatus: number;
  /** The command's exit status, when it ran and the worker said so. */
  status?: number;
  /** The worker could not run the command (why). */
  refused?: string;
  /** A dependency install failed: the hash of what it was made from (lib/run/deps.ts) and the installer's first lines. */
  depFailed?: { hash: string; said: string };
  /** When the command's end was seen here (performance.now()). */
  seenAt?: number;
  /** Seconds the worker spent installing dependencies first. */
  depsSeconds?: number;
  /** Whether the worker's copy is the one this machine's ancestor describes. */
  ancestor?: 'same' | 'lost';
  /** The worker's platform, as its program reported it (lib/remote/worker/platform.pl). */
  platform?: Platform;
  /** What the command changed (check `report.broken`, `report.done`). */
  report: ReportReader;
  /** Why the worker's frames could not be read (then nothing of the report is applied). */
  broken?: string;
  /** What the worker was doing when the report ended or the run was stopped ('deps', 'run'). */
  phase?: string;
  /** When each phase was seen here (performance.now()), outside terminal mode: what a stopped run's times are made of. */
  phaseAt?: Record<string, number>;
  /** Stopped by the deadline after the command had ended (its files were still coming back). */
  endedBeforeDeadline?: boolean;
  /**
   * Set when sparehand stopped the run: a signal it received, the deadline (`timeout`), or `late` (the worker had
   * not started the command by the time it had to: `startBy`).
   */
  stoppedBy?: NodeJS.Signals | 'timeout' | 'late';
}

/** ssh's (or the exec program's) exit status (128+N for a signal), once it has ended and its output is read. */
function sshEnded(child: ChildProcess, program: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    child.once('error', (e) => reject(new SparehandError('SSH', `cannot start ${program}: ${e.message}`, { cause: e })));
    child.once('close', (code, signal) => resolve(exitStatus(code, signal)));
  });
}

const NO_PERL = 'the worker has no perl, which sparehand needs to count slots and find what the command changed (install perl there)';

/** After asking the remote group to stop, how long before closing the line (the worker then KILLs). */
const GRACE_MS = 5000;
/**
 * After the line was closed, how long the worker program may take to end (its KILL comes 2 s after it sees the
 * line closed): past that it is hung up on (a program that does not read its input, stopped by its command, say).
 */
const HANG_UP_MS = 4000;
/** After ssh was asked to end (SIGTERM), how long before it is killed. */
const KILL_MS = 2000;
/** A hole is hashed here in pieces this big, the event loop free between them (the deadline and signals reach it). */
const HOLE_PIECE = 16 << 20;
/** After a refusal, how long the worker's other stream may take to end. */
const REFUSED_END_MS = 1000;
/** After the report, how long ssh may take to end before it is stopped. */
const AFTER_RESULTS_MS = 1500;
/** Terminal mode, stopped by the deadline: how long the holding session may take to say how far the run got. */
const STOPPED_ASK_MS = 2000;

export interface Session {
  claimed: Promise<Claimed>;
  /** The worker's `copy` frame; undefined when it sent none (not asked, no slot, the session ended). */
  copy: Promise<CopyState | undefined>;
  /**
   * The project is on the worker: sparehand's own changes to the copy, then the command runs (pipe mode).
   * `unsent`: nothing was sent to the copy since the claim but these changes (the worker then knows what it holds
   * without walking it: lib/remote/worker/main.pl).
   */
  go(changes: readonly OwnChange[], unsent?: boolean): void;
  /**
   * Runs the command (after `go`) and reads the report, until it is whole or the session ended. `deadline`: when
   * the run must end (Date.now() time); `startBy`: when the command must have started there.
   */
  run(opts: { deadline?: number | undefined; startBy?: number | undefined; signals: SignalSource }): Promise<ExecResult>;
  /** Asks for the content of changes the report carried none for; resolves when it came (or the session ended). */
  fetch(indices: readonly number[]): Promise<void>;
  /** Terminal mode: the job file the terminal session reads (after `go`), or undefined when the session ended. */
  ready: Promise<string | undefined>;
  /** Terminal mode: reads the report the terminal session left on the worker. */
  results(sshStatus: number, bound?: Bound): Promise<ExecResult>;
  /** Ends the session; the worker lets the slot go. */
  close(): void;
  /** The copy's folder on the worker, as its `root` frame named it (checked: root-rewrite.ts rootsOf). */
  roots(): readonly string[];
  /** The session's end (its ssh exit status). */
  ended: Promise<number>;
}

/**
 * Starts the session: ssh or an exec program (argv from the caller, lib/remote/transport.ts: the bootstrap as the
 * remote command) in its own process group (a Ctrl-C reaches sparehand, not it), the program and the job on its
 * input at once.
 */
export function openSession(
  ctx: Context,
  /** `onOutput`: sees what the command prints (both streams), as it comes; `root`: the project's root here. */
  opts: { argv: string[]; env: NodeJS.ProcessEnv; job: Job; staging: Staging; root: string; onOutput?: (chunk: Buffer) => void; sshLines?: Transform },
): Session {
  const [program, ...args] = opts.argv as [string, ...string[]];
  const child = start(program, args, { env: opts.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  // The command's output, and what the worker program says on its stderr (an install's output), with the copy's
  // folder there shown as the project's root here once the worker has named it (`root`).
  const out = rewrittenOutput(ctx.stdout, opts.root);
  const err = rewrittenOutput(ctx.stderr, opts.root);
  const programErr = rewrittenOutput(ctx.stderr, opts.root);
  // What the worker's shell says before the program's first frame is held back: when perl is missing there it is
  // only "perl: command not found", which the run says better.
  let heldErr: Buffer[] | undefined = [];
  const releaseErr = () => {
    if (heldErr) for (const b of heldErr) ctx.stderr.write(b);
    heldErr = undefined;
  };
  // `sshLines`: ssh's own lines taken out, said as sparehand's sentences (ssh-lines.ts).
  (opts.sshLines && child.stderr ? child.stderr.pipe(opts.sshLines) : child.stderr)?.on('data', (d: Buffer) => {
    opts.onOutput?.(d);
    if (heldErr) heldErr.push(d);
    else void programErr.write(d);
  });
  child.stdin?.on('error', () => undefined);
  // The session's key first (frames.ts): only a frame sealed with it is the worker program's.
  const key = sessionKey();
  child.stdin?.write(Buffer.concat([programPreamble(key), jobFrame(opts.job)]));
  const ended = sshEnded(child, program);
  ended.catch(() => undefined);
  // ssh's own end, before its output has: through a shared connection, the master holds the output open as long
  // as the worker's side lives (a worker program stopped by its command, say).
  const exited = new Promise<number>((r) => child.once('exit', (code, signal) => r(exitStatus(code, signal))));

  const reader = new FrameReader(key);
  const report = new ReportReader(opts.staging);
  const result: Omit<ExecResult, 'sshStatus' | 'report'> = {};
  let stoppedBy: ExecResult['stoppedBy'];
  let claimed!: (c: Claimed) => void;
  const claim = new Promise<Claimed>((r) => (claimed = r));
  let copyState!: (c: CopyState | undefined) => void;
  const copy = new Promise<CopyState | undefined>((r) => (copyState = r));
  let readyFile!: (f: string | undefined) => void;
  const ready = new Promise<string | undefined>((r) => (readyFile = r));
  let wake: () => void = () => undefined;
  const changed = () => {
    const w = wake;
    wake = () => undefined;
    w();
  };
  const settled = () => new Promise<void>((r) => (wake = r));
  let streamEnded = false;
  let roots: string[] = [];
  let fetching = 0;
  let framesSeen = 0;
  /** Nothing more of the session is wanted (hung up on): what still comes is not read. */
  let abandoned = false;
  /** Terminal mode: the holding session has passed on all the terminal session left. */
  let relayed = false;

  /** A big hole, hashed in pieces with the event loop free between them; checked whole against its file first. */
  const bigHole = async (n: number): Promise<void> => {
    if (!report.holeFits(n)) {
      report.take({ type: 'hole', payload: Buffer.from(String(n)) });
      return;
    }
    for (let left = n; left > 0 && !abandoned; left -= HOLE_PIECE) {
      report.take({ type: 'hole', payload: Buffer.from(String(Math.min(left, HOLE_PIECE))) });
      await new Promise((r) => setImmediate(r));
    }
  };

  // Each frame as the protocol's table says (protocol.ts): a type the worker does not send, or one too big for its
  // type, ends the reading.
  const onFrame = async (f: Frame): Promise<void> => {
    const unfit = unfitFromWorker(f);
    if (unfit !== undefined) {
      result.broken = unfit;
      return;
    }
    switch (f.type as FrameType) {
      case 'hole': {
        const n = f.payload.length <= 16 && /^\d+$/.test(f.payload.toString('latin1')) ? Number(f.payload.toString('latin1')) : 0;
        if (n > HOLE_PIECE) return bigHole(n);
        if (!report.take(f)) result.broken = 'a frame the worker should not send (hole)';
        return;
      }
      case 'out':
        opts.onOutput?.(f.payload);
        return out.write(f.payload);
      case 'err':
        opts.onOutput?.(f.payload);
        return err.write(f.payload);
      case 'root': {
        roots = rootsOf(f.payload, opts.job.key, opts.job.folder);
        for (const o of [out, err, programErr]) o.setRoots(roots);
        return;
      }
      case 'claim':
        claimed(FRAMES.claim.parse(f.payload));
        return;
      case 'ready':
        readyFile(f.payload.toString());
        return;
      case 'copy':
        copyState(FRAMES.copy.parse(f.payload));
        return;
      case 'done':
        relayed = true;
        return;
      case 'forged':
        // Terminal mode: what the terminal session left on the worker is not what it wrote (the holding session checked).
        result.broken = f.payload.toString().slice(0, 200);
        return;
      case 'refused':
        result.refused = printableSentence(f.payload.toString());
        // Before a slot was given, the refusal is the claim's answer.
        claimed({ refused: result.refused });
        return;
      case 'depfail': {
        const failed = FRAMES.depfail.parse(f.payload);
        if (failed) result.depFailed = failed;
        return;
      }
      case 'anc':
        result.ancestor = f.payload.toString() === 'same' ? 'same' : 'lost';
        return;
      case 'plat': {
        const p = FRAMES.plat.parse(f.payload);
        if (p) result.platform = p;
        return;
      }
      case 'gone':
        // A file asked for (fetch) is not there any more: nothing comes for it.
        if (fetching > 0) fetching--;
        return;
      case 'phase':
        result.phase = f.payload.toString().slice(0, 16);
        result.phaseAt = { ...result.phaseAt, [result.phase]: performance.now() };
        return;
      case 'ran': {
        const ran = FRAMES.ran.parse(f.payload);
        if (!ran || result.status !== undefined) {
          result.broken = 'an exit status that is not one';
          return;
        }
        result.status = ran.status;
        result.seenAt = performance.now();
        out.flush();
        err.flush();
        if (ran.depsSeconds !== undefined) result.depsSeconds = ran.depsSeconds;
        return;
      }
      default:
        if (!report.take(f)) result.broken = `a frame the worker should not send (${f.type.slice(0, 16)})`;
        else if (fetching > 0 && f.type === 'sum') fetching--;
    }
  };

  // One reader for the whole session, frame by frame in order (output is passed on before what follows it).
  const pumped = (async () => {
    try {
      for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
        for (const f of reader.push(chunk)) {
          // A frame that broke the reading ends it here: what follows it in the same chunk is not taken either.
          if (abandoned || result.broken) break;
          if (framesSeen++ === 0) releaseErr();
          await onFrame(f);
          changed();
        }
        if (reader.broken) result.broken ??= reader.broken;
        if (result.broken || abandoned) break;
      }
    } finally {
      for (const o of [out, err, programErr]) o.flush();
      streamEnded = true;
      // Nothing at all, and the worker's shell said "command not found": no perl there.
      if (framesSeen === 0 && (await ended.catch(() => -1)) === 127) {
        heldErr = undefined;
        claimed({ refused: NO_PERL });
      }
      releaseErr();
      claimed({ lost: true });
      copyState(undefined);
      readyFile(undefined);
      changed();
    }
  })();
  // (Its output cut off once the session is hung up on: the end of the reading, not a failure.)
  pumped.catch(() => undefined);

  const write = (data: Buffer) => {
    if (child.stdin?.writable) child.stdin.write(data);
  };
  const signalGroup = (sig: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      /* already gone */
    }
  };
  const hangUp = () => {
    abandoned = true;
    signalGroup('SIGTERM');
  };
  /** ssh's end, hung up on first (killed when it does not end when asked); what it still had to say is not read. */
  const endNow = async (): Promise<number> => {
    hangUp();
    let kill: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([ended, exited, new Promise<number>((r) => (kill = setTimeout(() => (signalGroup('SIGKILL'), r(exited)), KILL_MS)))]);
    } finally {
      clearTimeout(kill);
      if (child.exitCode !== null || child.signalCode !== null) for (const s of [child.stdout, child.stderr]) s?.destroy();
    }
  };
  const finished = () => streamEnded || relayed || Boolean(result.broken) || result.refused !== undefined || report.done || Boolean(report.broken);
  /** Waits until `done()`, or until the deadline passes or a signal comes (then the session is hung up on: true). */
  const bounded = async (done: () => boolean, bound: Bound | undefined): Promise<boolean> => {
    let cut = false;
    const stop = () => {
      cut = true;
      hangUp();
      changed();
    };
    const at = bound?.deadline;
    const timer = at === undefined ? undefined : setTimeout(stop, Math.max(0, at - Date.now()));
    bound?.signals?.react(stop);
    try {
      while (!done() && !cut) await settled();
      return cut;
    } finally {
      clearTimeout(timer);
      bound?.signals?.react(undefined);
    }
  };
  /** The run's own bounds, kept for what follows it (the content fetched after the report). */
  let runBound: Bound | undefined;
  const outcome = (sshStatus: number): ExecResult => ({ ...result, sshStatus, report, ...(stoppedBy ? { stoppedBy } : {}) });

  return {
    claimed: claim,
    copy,
    ended,
    ready,
    roots: () => roots,
    go: (changes, unsent) => {
      const parts = [frame('go', unsent ? 'unsent' : '')];
      for (const c of changes) {
        if (c.op === 'del') parts.push(frame('del', c.path));
        else {
          parts.push(frame('put', Buffer.concat([Buffer.from(`${(c.mode & 0o777).toString(8)} ${c.mtime} ${c.content.length}\n`), Buffer.from(c.path)])));
          for (let at = 0; at < c.content.length; at += 1 << 20) parts.push(frame('dat', c.content.subarray(at, at + (1 << 20))));
        }
      }
      parts.push(frame('start'));
      write(Buffer.concat(parts));
    },
    run: async ({ deadline, startBy, signals }) => {
      runBound = { deadline, signals };
      let closing: NodeJS.Timeout | undefined;
      let giveUp: NodeJS.Timeout | undefined;
      let hungUp = false;
      const stop = (sig: NodeJS.Signals) => {
        // Once the command has finished, nothing of a stopped run is wanted: end the session.
        if (result.status !== undefined) return hangUp();
        write(frame('sig', sig.slice(3)));
        closing ??= setTimeout(() => child.stdin?.end(), GRACE_MS);
        // A worker program that does not end (stopped by its command) is not waited for.
        giveUp ??= setTimeout(() => {
          hungUp = true;
          changed();
        }, GRACE_MS + HANG_UP_MS);
      };
      signals.react((sig, again) => {
        if (again && sig === 'SIGINT') child.stdin?.end(); // a second Ctrl-C: stop now
        stoppedBy ??= sig;
        stop(sig);
        changed();
      });
      const after = (at: number | undefined, fn: () => void) => (at === undefined ? undefined : setTimeout(fn, Math.max(0, at - Date.now())));
      const timer = after(deadline, () => {
        // Whether the command had already ended (only its files were still coming) decides what the run says.
        if (stoppedBy === undefined) result.endedBeforeDeadline = result.status !== undefined;
        stoppedBy ??= 'timeout';
        stop('SIGTERM');
        changed();
      });
      // Not started by then (an install, a slow walk): stopped, so that the run can go on elsewhere in time.
      const lateTimer =
        startBy === undefined || startBy === deadline
          ? undefined
          : after(startBy, () => {
              if (result.phase === 'run' || result.status !== undefined) return;
              // Nothing of it is wanted now, and nothing may start there: the session ends (its end stops the worker's).
              stoppedBy ??= 'late';
              child.stdin?.end();
              hangUp();
              changed();
            });
      try {
        for (;;) {
          if (finished()) break;
          if (stoppedBy !== undefined && (result.status !== undefined || stoppedBy === 'late' || hungUp)) break;
          await settled();
        }
        if (stoppedBy === 'late') return outcome(-1);
        if (stoppedBy !== undefined) return outcome(await endNow());
        // (Frames that cannot be trusted: nothing more of the session is read, and it is hung up on.)
        if (result.broken) return outcome(await endNow());
        if (streamEnded) return outcome(await ended);
        // Refused (an install that failed, say): what the worker still prints on its other stream (the installer's
        // last lines) comes before sparehand's own line about it; a worker that does not end is not waited for.
        if (result.refused !== undefined)
          return outcome(await Promise.race([ended.catch(() => -1), new Promise<number>((r) => setTimeout(r, REFUSED_END_MS, -1).unref())]));
        return outcome(-1);
      } finally {
        signals.react(undefined);
        clearTimeout(timer);
        clearTimeout(lateTimer);
        clearTimeout(closing);
        clearTimeout(giveUp);
      }
    },
    fetch: async (indices) => {
      if (indices.length === 0 || streamEnded) return;
      fetching += indices.length;
      write(Buffer.concat(indices.map((i) => frame('want', String(i)))));
      // (Bounded as the run is: what has not come by its deadline, or when a signal comes, is not applied.)
      await bounded(() => fetching === 0 || streamEnded || Boolean(result.broken) || Boolean(report.broken), runBound);
      fetching = 0;
    },
    results: async (sshStatus, bound) => {
      write(frame('results'));
      // (Cut short, the results say nothing of the run, which did run: never taken for one that did not.)
      if (await bounded(finished, bound)) result.broken ??= "the worker did not pass on the terminal session's results in time";
      const r = outcome(sshStatus);
      // The terminal session's own exit status is the command's; a report that says otherwise was not its.
      if (r.status !== undefined && r.status !== sshStatus) r.broken ??= 'its exit status is not the one the terminal session ended with';
      if (r.status !== undefined) r.status = sshStatus;
      return r;
    },
    close: () => {
      write(frame('bye'));
      child.stdin?.end();
      setTimeout(hangUp, AFTER_RESULTS_MS).unref();
      // sparehand may end before this ssh does (its output went through a shared connection, whose master keeps
      // those pipes open as long as the worker's side runs: a worker still busy must not hold this process).
      child.unref();
      (child.stdout as { unref?: () => void } | null)?.unref?.();
      (child.stderr as { unref?: () => void } | null)?.unref?.();
      void pumped;
    },
  };
}

/**
 * Terminal mode: the command runs in `ssh -tt` (ssh owns the terminal; a Ctrl-C travels through it), started
 * with the job file the holding session wrote; that session then passes on the report.
 */
export async function execTerminal(
  ctx: Pick<Context, 'stdout'>,
  hold: Session,
  opts: { argv: (jobFile: string) => string[]; env: NodeJS.ProcessEnv; deadline?: number | undefined; signals: SignalSource; root: string },
): Promise<ExecResult | undefined> {
  const jobFile = await hold.ready;
  if (jobFile === undefined) {
    // The holding session ended first: a refusal it sent (nothing ran) is said as one.
    const r = await hold.results(-1);
    return r.refused !== undefined && r.phase === undefined ? r : undefined;
  }
  const [program, ...args] = opts.argv(jobFile) as [string, ...string[]];
  // The terminal's output (stdout and stderr both, as the worker's terminal gives them) with the copy's folder
  // shown as the root here; the terminal stays ssh's for input.
  const child: ChildProcess = start(program, args, { env: opts.env, stdio: ['inherit', 'pipe', 'inherit'] });
  const startedAt = performance.now();
  const rw = new RootRewriter(opts.root);
  rw.setRoots(hold.roots());
  const shown = (child.stdout as NodeJS.ReadableStream).pipe(rootRewriteStream(rw));
  shown.pipe(ctx.stdout, { end: false });
  const allShown = new Promise((r) => shown.once('end', r));
  let stoppedBy: ExecResult['stoppedBy'];
  const stop = (sig: NodeJS.Signals) => child.kill(sig);
  opts.signals.react((sig) => {
    stoppedBy ??= sig;
    stop(sig);
  });
  const timer =
    opts.deadline === undefined ? undefined : setTimeout(() => ((stoppedBy ??= 'timeout'), stop('SIGTERM')), Math.max(0, opts.deadline - Date.now()));
  try {
    const sshStatus = await sshEnded(child, program);
    await allShown;
    if (stoppedBy !== undefined) {
      const stopped: ExecResult = { sshStatus, report: new ReportReader({ dir: () => undefined }), stoppedBy };
      if (stoppedBy !== 'timeout') return stopped;
      // Whether the command had started (the phase the terminal session wrote down on the worker), so that the
      // stop says so; its time counts from the terminal session's start. A worker slow to say is not waited for.
      const left = await Promise.race([hold.results(sshStatus), new Promise<undefined>((r) => setTimeout(r, STOPPED_ASK_MS, undefined).unref())]);
      return left?.phase ? { ...stopped, phase: left.phase, phaseAt: { [left.phase]: startedAt } } : stopped;
    }
    const r = await hold.results(sshStatus, { deadline: opts.deadline, signals: opts.signals });
    // Ctrl-C at the terminal stopped it before the command ran (an install): the run was stopped, not lost.
    const signal = Object.entries(constants.signals).find(([, n]) => n === sshStatus - 128)?.[0] as NodeJS.Signals | undefined;
    if (r.status === undefined && r.refused === undefined && signal) r.stoppedBy = signal;
    return r;
  } finally {
    opts.signals.react(undefined);
    clearTimeout(timer);
  }
}
