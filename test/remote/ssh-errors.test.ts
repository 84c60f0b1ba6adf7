// The fix a failed connection prints is the exact command that reaches the worker (its port and key).
import { describe, expect, it } from 'vitest';
import { diagnoseSsh } from '../../lib/remote/ssh-errors.js';

const worker = { name: 'w0', destination: 'root@127.0.0.1', port: 22422, identity: '/tmp/test keys/id_ed25519' };

describe('diagnoseSsh', () => {
  it('an unknown host key: connect once by hand with ssh -p … -i … user@host', () => {
    const d = diagnoseSsh('Host key verification failed.\r\n', worker);
    expect(d.kind).toBe('host-key-unknown');
    expect(d.hint).toBe(
      "connect once by hand with `ssh -p 22422 -i '/tmp/test keys/id_ed25519' root@127.0.0.1` and check the fingerprint it shows (`sparehand help workers`)",
    );
  });

  it('a changed host key: the known_hosts name with its port, then the same ssh', () => {
    const d = diagnoseSsh('@@@@@@@@@@@\nWARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!\n', worker);
    expect(d.hint).toContain("run `ssh-keygen -R '[127.0.0.1]:22422'` and connect once with `ssh -p 22422 -i '/tmp/test keys/id_ed25519' root@127.0.0.1`");
  });

  it('on port 22 with no key, the plain `ssh host`', () => {
    expect(diagnoseSsh('Host key verification failed.', { name: 'b', destination: 'box' }).hint).toContain('`ssh box`');
    expect(diagnoseSsh('REMOTE HOST IDENTIFICATION HAS CHANGED', { name: 'b', destination: 'me@box', port: 22 }).hint).toContain('`ssh-keygen -R box`');
  });

  it("a sandbox around the command: its proxy refused the host, or its filter refused the socket (ssh's words)", () => {
    const proxied = diagnoseSsh(
      "sparehand-proxy: the sandbox's proxy refused 127.0.0.1:22422 (HTTP 403 user denied, blocked-by-allowlist)\nkex_exchange_identification: Connection closed by remote host\nConnection closed by UNKNOWN port 65535",
      worker,
    );
    expect([proxied.kind, proxied.message]).toEqual([
      'sandbox',
      'worker "w0" (root@127.0.0.1): the sandbox\'s proxy refused 127.0.0.1:22422 (HTTP 403 user denied, blocked-by-allowlist)',
    ]);
    expect(diagnoseSsh('socket: Operation not permitted\nssh: connect to host 127.0.0.1 port 22422: failure\n', worker).kind).toBe('sandbox');
    expect(diagnoseSsh('ssh: connect to host 192.168.1.7 port 22: Operation not permitted\n', worker).message).toBe(
      'worker "w0" (root@127.0.0.1): the network is refused here (ssh: connect to host 192.168.1.7 port 22: Operation not permitted)',
    );
    // The proxy could not reach the host (it was allowed): the worker is unreachable, not refused.
    expect(diagnoseSsh("sparehand-proxy: the sandbox's proxy could not connect to 127.0.0.1:1 (HTTP 502 Bad Gateway)\n", worker).kind).toBe('unreachable');
  });
});
