// What one run asks of its worker program (lib/remote/worker/): the job frame, built from plain values. Every
// value travels on the session's input, never in an argument (where `ps` shows it, on either machine).
import { fields, frame } from './frames.js';

export interface Job {
  /** pipe: claim a slot, wait for "go", run; hold: claim a slot and hold it (for a terminal run); tty: just run. */
  mode: 'pipe' | 'hold' | 'tty';
  /** The worker's folder for project copies (relative to the login folder, or absolute). */
  dir: string;
  /** The project's folder in it (lib/run/project.ts projectKey); its copies are `<dir>/<key>/<n>`. */
  key: string;
  /** Slots the worker has when it has not said (its `<dir>/.slots` wins). */
  slots: number;
  /** Which of the project's copies the run uses: `<dir>/<key>/<folder>` (lib/run/folders.ts). */
  folder: number;
  /** Who runs what, recorded with the slot for `sparehand status` (worker-slots.ts runRecord). */
  record: string;
  /** Working folder relative to the project root ('.' for the root). */
  rel: string;
  command: string;
  /** What the tree watch skips (sync-rules.ts skipArgument). */
  skip: string;
  /** Folder names (globs) find never walks into: the simple ones among what is skipped (sync-rules.ts pruneNames). */
  prune?: readonly string[];
  /** Whether to find what the command changed (false: --no-sync-back). */
  watch: boolean;
  /** Dependency installs (lib/run/deps.ts), in order. */
  deps: ReadonlyArray<{ dir: string; hash: string; command: string; folder?: string; depth?: number; note?: string }>;
  /** The project's .venv to activate (relative to root), or ''. */
  venv: string;
  /** Programs the command starts that are found here: each must be found there too. */
  programs: readonly string[];
  /** Variables for the command (null: unset there). */
  env: Readonly<Record<string, string | null>>;
  /** The copy's generation as this machine's ancestor knows it ('' when it has none), and the one it gets now. */
  gen: string;
  newgen: string;
  /** Services the worker starts before the command and stops after it (worker/services.pl). */
  services?: ReadonlyArray<{ port: number; name: string; start: string; ready?: string; timeout: number }>;
  /** Whether to say if the copy is untouched since the last run (a `copy` frame after the claim: warm-send.ts). */
  warm?: boolean;
}

/** The job as the worker program reads it. */
export function jobFrame(job: Job): Buffer {
  const one: Array<[string, string]> = [
    ['mode', job.mode],
    ['dir', job.dir],
    ['key', job.key],
    ['slots', String(job.slots)],
    ['folder', String(job.folder)],
    ['record', job.record],
    ['rel', job.rel],
    ['command', job.command],
    ['skip', job.skip],
    ['watch', job.watch ? '1' : ''],
    ['venv', job.venv],
    ['gen', job.gen],
    ['newgen', job.newgen],
    ['warm', job.warm ? '1' : ''],
    // One line each: port, seconds, then name, ready and start in hex (any byte, no separator to escape).
    [
      'services',
      (job.services ?? [])
        .map((s) => [String(s.port), String(s.timeout), ...[s.name, s.ready ?? '', s.start].map((t) => Buffer.from(t).toString('hex'))].join('\t'))
        .join('\n'),
    ],
  ];
  const deps = job.deps.map((d): [string, string] => [
    'dep',
    [d.dir, d.dir.replaceAll('/', '%'), d.hash, d.folder ? `${d.folder}:${d.depth ?? 2}` : '', (d.note ?? '').replace(/[\t\n]/g, ' '), d.command].join('\t'),
  ]);
  // `NAME` alone: unset (env.pl command_env).
  const env = Object.entries(job.env).map(([k, v]): [string, string] => ['env', v === null ? k : `${k}=${v}`]);
  const programs = job.programs.map((p): [string, string] => ['program', p]);
  const prune = (job.prune ?? []).map((p): [string, string] => ['prune', p]);
  return frame('job', fields([...one, ...deps, ...env, ...programs, ...prune]));
}
