// ssh's own lines on the stderr of a run's own connection (the master that carries its forwards: forward.ts), said as
// sparehand's sentences instead of printed raw among the worker's output. ssh's log writes each of its lines in one
// write, ending in "\r\n"; the worker's own stderr (an installer's output) reaches the same stream, and passes as it
// came.
import { Transform } from 'node:stream';

/** A line of ssh's own, and the sentence it becomes (undefined: none, sparehand says it elsewhere). */
interface SshLine {
  pattern: RegExp;
  sentence: (m: RegExpExecArray, worker: string) => string | undefined;
}

const LINES: readonly SshLine[] = [
  // A forward the worker's sshd refused or could not bind: forward.ts names the port and the reason.
  { pattern: /^mux_confirm_remote_forward: remote port forwarding failed for listen port \d+\r\n$/, sentence: () => undefined },
  // The command reached a forwarded port there, and nothing answered here.
  {
    pattern: /^connect_to (\S{1,255}) port (\d{1,5}): failed\.\r\n$/,
    sentence: (m, worker) =>
      `the command on ${worker} connected to localhost:${m[2]}, which is forwarded to this machine's ${m[1]}:${m[2]}, but nothing answers there (start the service here, or take it out of "services" in the config)`,
  },
];

/** What a line of ssh's starts with: a chunk ending in one of these, with no line end yet, waits for the rest. */
const STARTS = ['mux_confirm_remote_forward:', 'connect_to '];
const MAX_LINE = 512;

/**
 * The stream of the session's stderr with ssh's own known lines taken out: each said once, as a sentence, to `say`
 * (a line that repeats, as one per connection the command makes, is said the first time).
 */
export function sshOwnLines(worker: string, say: (sentence: string) => void): Transform {
  let held = '';
  const said = new Set<string>();
  const take = (text: string): string => {
    let out = '';
    let at = 0;
    for (;;) {
      const nl = text.indexOf('\n', at);
      if (nl < 0) break;
      const line = text.slice(at, nl + 1);
      at = nl + 1;
      const known = LINES.map((l) => ({ l, m: l.pattern.exec(line) })).find((x) => x.m !== null);
      if (!known) {
        out += line;
        continue;
      }
      const sentence = known.l.sentence(known.m as RegExpExecArray, worker);
      if (sentence !== undefined && !said.has(sentence)) {
        said.add(sentence);
        say(sentence);
      }
    }
    const rest = text.slice(at);
    // The start of a line of ssh's, split across reads: kept until its end comes.
    if (rest.length < MAX_LINE && STARTS.some((s) => s.startsWith(rest) || rest.startsWith(s))) held = rest;
    else out += rest;
    return out;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const text = held + chunk.toString('latin1');
      held = '';
      const out = take(text);
      done(null, out.length > 0 ? Buffer.from(out, 'latin1') : undefined);
    },
    flush(done) {
      done(null, held.length > 0 ? Buffer.from(held, 'latin1') : undefined);
    },
  });
}
