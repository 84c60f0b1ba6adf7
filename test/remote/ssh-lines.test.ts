// ssh's own lines on a run's own connection become sparehand's sentences; the worker's output on the same stream
// passes byte for byte, however the reads split it.
import { describe, expect, it } from 'vitest';
import { sshOwnLines } from '../../lib/remote/ssh-lines.js';

/** What passes and what is said, for `chunks` written in turn. */
async function through(chunks: readonly string[]): Promise<{ out: string; said: string[] }> {
  const said: string[] = [];
  const t = sshOwnLines('w0', (l) => said.push(l));
  let out = '';
  t.on('data', (d: Buffer) => (out += d.toString('latin1')));
  const ended = new Promise((r) => t.on('end', r));
  for (const c of chunks) t.write(Buffer.from(c, 'latin1'));
  t.end();
  await ended;
  return { out, said };
}

const refused = 'connect_to 127.0.0.2 port 5432: failed.\r\n';
const sentence =
  'the command on w0 connected to localhost:5432, which is forwarded to this machine\'s 127.0.0.2:5432, but nothing answers there (start the service here, or take it out of "services" in the config)';

describe("ssh's own lines", () => {
  it('a refused forward goes unsaid here (the run names the port); a failed connection here is said once', async () => {
    expect(await through(['mux_confirm_remote_forward: remote port forwarding failed for listen port 5432\r\n'])).toEqual({ out: '', said: [] });
    expect(await through([refused, refused, 'npm warn x\n', refused])).toEqual({ out: 'npm warn x\n', said: [sentence] });
  });

  it("split across reads, and between the worker's own lines", async () => {
    const text = `installing\n${refused}done\n`;
    for (let at = 0; at <= text.length; at++) {
      expect(await through([text.slice(0, at), text.slice(at)])).toEqual({ out: 'installing\ndone\n', said: [sentence] });
    }
  });

  it("the worker's output passes as it came: other lines, a line like ssh's without its \\r\\n, a last line without an end, bytes that are not UTF-8", async () => {
    const lines = ['connect_to the database\n', 'connect_to 127.0.0.2 port 5432: failed.\n', 'progress 50%\r', 'connect_to', '\xff\xfe\n'];
    expect(await through(lines)).toEqual({ out: lines.join(''), said: [] });
  });
});
