// The worker program (lib/remote/worker/) run here with real perl, without ssh: a folder stands for the worker's
// --dir, the job and frames go on its input as a session would send them, and what it answers is read with the
// same readers a run uses. For protocol tests that need no sshd.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Frame, FrameReader, frame } from '../../lib/remote/frames.js';
import { type Job, jobFrame } from '../../lib/remote/job.js';
import { notBroughtBack, skipArgument, skipRules } from '../../lib/remote/sync-rules.js';
import { BOOT, programPreamble } from '../../lib/remote/worker/program.js';
import { afterAll } from 'vitest';
import { ReportReader } from '../../lib/remote/report-reader.js';
import { tempDir } from './context.js';

export interface WorkerAnswer {
  frames: Frame[];
  /** The command's stdout, from `out` frames. */
  out: string;
  status?: number;
  refused?: string;
  anc?: string;
  /** What the worker said of its copy (job.warm): `same GEN` or `changed GEN`. */
  copy?: string;
  report: ReportReader;
  stderr: string;
  exit: number | null;
}

// The worker folders this file made, deleted when it ends: a run leaves a watcher of its copy there
// (lib/remote/worker/watch.pl, watcher.pl), which ends once the copy is gone instead of 20 minutes on (each holds one of the
// user's inotify instances: 128 by default, shared with the watchers of the projects here).
const made: string[] = [];
afterAll(() => {
  // Retried: a watcher may still write beside the copy while it is deleted (it ends once the copy is gone).
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

/** A worker folder with copy 0 of project `key`: `root` is the copy (made, empty). */
export function workerFolder(): { dir: string; key: string; root: string } {
  const top = tempDir('sparehand-wdir-');
  made.push(top);
  const dir = join(top, 'work');
  const key = 'proj-0123456789ab';
  const root = join(dir, key, '0');
  mkdirSync(root, { recursive: true });
  return { dir, key, root };
}

/**
 * Runs the program for one job; `own`: frames after `go` (sparehand's own changes); `wrap`: a command to run perl under
 * (runuser …); `unsent`: `go` says nothing was sent but `own`; `beforeGo` (with job.warm): run once the worker said
 * what its copy is (the `copy` frame), before `go`: what happens on the worker between the two.
 */
export function runWorker(
  w: { dir: string; key: string },
  job: Partial<Job> & { command: string },
  opts: {
    own?: Buffer[];
    wrap?: string[];
    perlArgs?: string[];
    env?: NodeJS.ProcessEnv;
    input?: (f: Frame, write: (b: Buffer) => void) => void;
    unsent?: boolean;
    beforeGo?: () => void;
  } = {},
): Promise<WorkerAnswer> {
  const full: Job = {
    mode: 'pipe',
    dir: w.dir,
    key: w.key,
    slots: 2,
    folder: 0,
    record: 'test',
    rel: '.',
    skip: skipArgument(skipRules(notBroughtBack({}))),
    watch: true,
    deps: [],
    venv: '',
    programs: [],
    env: { SPAREHAND_RUN: '1' },
    gen: '',
    newgen: 'g1',
    ...job,
  };
  const argv = [...(opts.wrap ?? []), 'perl', ...(opts.perlArgs ?? []), '-e', BOOT];
  const child = spawn(argv[0] as string, argv.slice(1), {
    cwd: w.dir,
    env: opts.env ?? { PATH: process.env.PATH, HOME: w.dir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const write = (b: Buffer) => child.stdin.writable && child.stdin.write(b);
  child.stdin.on('error', () => undefined);
  const go = Buffer.concat([frame('go', opts.unsent ? 'unsent' : ''), ...(opts.own ?? []), frame('start')]);
  write(Buffer.concat([programPreamble(), jobFrame(full), ...(opts.beforeGo ? [] : [go])]));
  const reader = new FrameReader();
  const staging = tempDir('sparehand-staging-');
  const report = new ReportReader({ dir: () => staging });
  const answer: WorkerAnswer = { frames: [], out: '', report, stderr: '', exit: null };
  child.stderr.on('data', (d: Buffer) => (answer.stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    for (const f of reader.push(d)) {
      answer.frames.push(f);
      if (f.type === 'out') answer.out += f.payload.toString();
      else if (f.type === 'err') answer.stderr += f.payload.toString();
      else if (f.type === 'ran') answer.status = Number(f.payload.toString().split(' ')[0]);
      else if (f.type === 'refused') answer.refused = f.payload.toString();
      else if (f.type === 'anc') answer.anc = f.payload.toString();
      else if (f.type === 'copy') {
        answer.copy = f.payload.toString();
        opts.beforeGo?.();
        if (opts.beforeGo) write(go);
      } else report.take(f);
      opts.input?.(f, write);
      if (f.type === 'end' || f.type === 'refused') {
        if (!opts.input) write(frame('bye'));
        if (!opts.input) child.stdin.end();
      }
    }
  });
  return new Promise((resolve) => {
    child.on('close', (code) => {
      report.finish();
      answer.exit = code;
      resolve(answer);
    });
  });
}
