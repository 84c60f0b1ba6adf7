// Files of a project's copy on a worker, brought here on purpose (`sparehand worker fetch`): the paths go on the
// session's input (no argument limit), each file comes back as `SIZE MODE MTIME\n` and its bytes (`-\n` when it is
// not a regular file there), read by a strict parser that never trusts a size it was not given. Only regular
// files: a link or a folder there is named as missing, never followed.
import { start as startProgram } from '../process.js';
import { createHash } from 'node:crypto';
import { quote } from 'shell-quote';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';
import { connect, connectionFor, sshEnv } from './connection.js';
import { remoteArgv } from './transport.js';

// Perl core only. The copy's folder is the argument; the paths come NUL-separated on stdin.
const SEND = String.raw`
use strict; binmode STDOUT; binmode STDIN; require Time::HiRes;
chdir($ARGV[0]) or do { print "none\n"; exit 0 };
print "ok\n";
local $/ = "\0";
while (my $p = <STDIN>) {
  chomp $p;
  my @st = Time::HiRes::lstat($p);
  my $fh;
  unless (@st && -f _ && open($fh, '<:raw', $p)) { print "-\n"; next }
  my $left = $st[7];
  printf "%d %o %.9f\n", $left, $st[2] & 0777, $st[9];
  while ($left > 0) {
    my $n = sysread($fh, my $buf, $left < 1048576 ? $left : 1048576);
    last unless $n;
    print $buf;
    $left -= $n;
  }
  while ($left > 0) { my $n = $left < 65536 ? $left : 65536; print "\0" x $n; $left -= $n }
  close $fh;
}
`;

export interface FileHead {
  size: number;
  mode: number;
  mtime: number;
}

/** Where one file's bytes go: `write` each piece, then `end` with its md5; `undefined` from `start` drops them. */
export interface FileSink {
  write(piece: Buffer): void;
  end(md5: string): void;
}

/**
 * Asks the worker for `paths` in its folder `remoteRoot` and hands each to `start` (with undefined when it is no
 * regular file there). Throws when the worker cannot be reached or the copy is not there.
 */
export async function fetchFiles(
  ctx: Context,
  worker: Worker,
  remoteRoot: string,
  paths: readonly string[],
  start: (path: string, head: FileHead | undefined) => FileSink | undefined,
): Promise<void> {
  const conn = connectionFor(ctx, worker);
  await connect(ctx, worker, conn);
  const [file, ...args] = remoteArgv(worker, conn, quote(['perl', '-e', SEND, remoteRoot]));
  const child = startProgram(file as string, args, { env: sshEnv(ctx), stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.on('error', () => undefined);
  child.stdin.end(Buffer.from(paths.map((p) => `${p}\0`).join('')));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()).length > 4096 && (stderr = stderr.slice(-4096)));
  const ended = new Promise<number>((resolve, reject) => {
    child.once('error', (e) => reject(new SparehandError('SSH', `cannot start ${file}: ${e.message}`, { cause: e })));
    child.once('close', (code) => resolve(code ?? 255));
  });
  let pending: Buffer = Buffer.alloc(0);
  let greeted = false;
  let next = 0;
  let current: { sink: FileSink | undefined; left: number; md5: ReturnType<typeof createHash> } | undefined;
  const fail = (why: string) => new SparehandError('WORKER', `fetching from worker "${worker.name}" failed: ${why}`);
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (current) {
          const piece = pending.subarray(0, Math.min(current.left, pending.length));
          if (piece.length === 0) break;
          current.md5.update(piece);
          current.sink?.write(piece);
          current.left -= piece.length;
          pending = pending.subarray(piece.length);
          if (current.left > 0) break;
          current.sink?.end(current.md5.digest('hex'));
          current = undefined;
          continue;
        }
        const nl = pending.indexOf(10);
        if (nl < 0) {
          if (pending.length > 64) throw fail('it sent something that is not a file');
          break;
        }
        const line = pending.subarray(0, nl).toString('latin1');
        pending = pending.subarray(nl + 1);
        if (!greeted) {
          if (line === 'none')
            throw new SparehandError('WORKER', `worker "${worker.name}" no longer has the copy ${remoteRoot}`, {
              hint: 'run the build again: the next run there keeps its binaries again',
            });
          if (line !== 'ok') throw fail('it sent something that is not a file');
          greeted = true;
          continue;
        }
        const path = paths[next++];
        if (path === undefined) throw fail('it sent more files than were asked for');
        if (line === '-') {
          start(path, undefined);
          continue;
        }
        const m = /^(\d{1,16}) ([0-7]{1,6}) (\d{1,12}(?:\.\d{1,9})?)$/.exec(line);
        if (!m) throw fail('it sent something that is not a file');
        const head = { size: Number(m[1]), mode: parseInt(m[2] as string, 8) & 0o777, mtime: Number(m[3]) };
        current = { sink: start(path, head), left: head.size, md5: createHash('md5') };
        if (head.size === 0) {
          current.sink?.end(current.md5.digest('hex'));
          current = undefined;
        }
      }
    }
  } catch (e) {
    child.kill();
    throw e;
  }
  const code = await ended;
  if (!greeted || current || next < paths.length) {
    const why = stderr.trim().split('\n')[0] || `exit ${code}`;
    throw fail(code === 255 ? `the connection was lost (${why})` : why);
  }
}
