// The per-project watcher on a Mac (lib/watch/journal.ts starts it, detached): `node fsevents-watcher.cjs ROOT
// SKIPFILE ID SKIPHASH MODULE`. It asks FSEvents, through the `fsevents` package (MODULE: its name, or a stand-in's
// path for tests), what changes in the project and appends each change to the same journal as the Linux watcher
// (watcher.pl's header: the format, what is not watched, when it ends), so that everything that reads it is shared.
// Node's own fs.watch would do FSEvents too, but libuv drops the events that say events were lost; fsevents passes
// every flag on. What each event becomes is fsevents-records.ts (pure, tested on Linux). Bundled on its own
// (dist/fsevents-watcher.cjs, scripts/build.js), with fsevents loaded at run time from sparehand's own node_modules.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { ALWAYS_SKIPPED, decide, insideSkipped } from './fsevents-records.js';

interface FsEvents {
  watch(path: string, handler: (path: string, flags: number, id: string) => void): () => Promise<void>;
}

const [root = '', skipFile = '', id = '', skipHash = '', moduleName = 'fsevents'] = process.argv.slice(2);
const DIR = '.sparehand/watch';
/** An hour without a barrier: nobody asks this watcher any more. */
const IDLE_MS = 3600_000;
/** Its own first barrier must come back this soon, or the stream is taken for dead. */
const READY_MS = 10_000;
const MAX_JOURNAL = 64 * 1024 * 1024;

for (const signal of ['SIGHUP', 'SIGINT', 'SIGPIPE'] as const) process.on(signal, () => {});
process.title = `sparehand-watch ${root}`;
try {
  process.chdir(root);
} catch {
  process.exit(2);
}
let journal: number;
try {
  const { O_WRONLY, O_CREAT, O_TRUNC, O_APPEND } = constants;
  journal = openSync(`${DIR}/journal.${process.pid}`, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o600);
  writeSync(journal, `sparehand-watch 1 ${id} ${process.pid} ${skipHash}\n`);
  renameSync(`${DIR}/journal.${process.pid}`, `${DIR}/journal`);
} catch {
  process.exit(2);
}
rmSync(`${DIR}/starting`, { force: true });

let out: string[] = [];
/** The watcher lost track: said once in the journal, and it ends (a run that reads it walks). */
function lost(why: string): never {
  flush();
  writeSync(journal, `!${why}\0`);
  closeSync(journal);
  process.exit(0);
}
function flush(): void {
  if (out.length === 0) return;
  const text = out.join('');
  out = [];
  writeSync(journal, text);
  if (fstatSync(journal).size > MAX_JOURNAL) lost('the journal grew too big');
}

const skip = new Set<string>(ALWAYS_SKIPPED);
try {
  for (const p of readFileSync(skipFile, 'utf8').split('\0')) if (p) skip.add(p);
} catch {
  /* none */
}
rmSync(skipFile, { force: true });

let real: string;
try {
  // FSEvents names real paths (/private/var/…, not /var/…): the project's, to read its events by.
  real = realpathSync.native('.');
} catch (e) {
  lost(`cannot watch here: the project folder cannot be resolved (${(e as Error).message})`);
}
let fsevents: FsEvents;
try {
  fsevents = createRequire(import.meta.url)(moduleName) as FsEvents;
} catch (e) {
  lost(`cannot watch here: the fsevents module cannot be loaded (${(e as Error).message.split('\n')[0]})`);
}
mkdirSync(`${DIR}/cookies`, { recursive: true, mode: 0o700 });

/** Everything in the folder `rel` (made or moved in), journaled as made: what FSEvents names only by the folder. */
function scan(rel: string): void {
  const todo = [rel];
  for (let d = todo.pop(); d !== undefined; d = todo.pop()) {
    if (skip.has(d) || insideSkipped(d, skip)) continue;
    let entries: Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const p = `${d}/${e.name}`;
      out.push(`s${p}\0`);
      if (e.isDirectory()) todo.push(p);
    }
  }
}

const w = { root: real, skip };
// Its own first barrier: once it is back, the stream is live and everything from here on is in the journal.
const readyCookie = `ready-${randomBytes(8).toString('hex')}`;
let ready = false;
let lastCookie = Date.now();
fsevents.watch(real, (path, flags) => {
  const d = decide(w, path, flags);
  if ('lost' in d) lost(d.lost);
  if ('barrier' in d) {
    if (d.barrier === readyCookie) {
      if (!ready) out.push('r\0');
      ready = true;
    } else {
      out.push(`k${d.barrier}\0`);
      lastCookie = Date.now();
    }
    rmSync(`${DIR}/cookies/${d.barrier}`, { force: true });
  } else {
    for (const r of d.records) out.push(`${r}\0`);
    if (d.scan !== undefined) scan(d.scan);
  }
  // fsevents calls this once per event of a batch: written once the batch is in (in the order it came).
  if (out.length > 0) setImmediate(flush);
});
writeFileSync(`${DIR}/cookies/${readyCookie}`, '');
setTimeout(() => {
  if (!ready) lost('FSEvents did not answer (its own first barrier never came back)');
}, READY_MS).unref();

// Another watcher took the journal, the project is gone, or nobody asked for an hour: end.
setInterval(() => {
  const head = Buffer.alloc(512);
  try {
    const fd = openSync(`${DIR}/journal`, 'r');
    readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
  } catch {
    process.exit(0);
  }
  const line = head.toString('utf8').split('\n')[0] ?? '';
  if (!line.startsWith(`sparehand-watch 1 ${id} `)) process.exit(0);
  if (Date.now() - lastCookie > IDLE_MS) lost('idle for an hour');
}, 30_000);
