// The fix a failed connection prints is the exact command that reaches the worker (its port and key).
import { describe, expect, it } from 'vitest';
import { diagnoseSsh } from '../../lib/remote/ssh-errors.js';

const worker = { name: 'w0', destination: 'root@127.0.0.1', port: 22422, identity: '/tmp/test keys/id_ed25519' };

describe('diagnoseSsh', () => {
  it('an unknown host key: connect once by hand with ssh -p … -i … user@host', () => {
    const d = diagnoseSsh('Host key verification failed.\r\n', worker);
    expect(d.kind).toBe('host-key-unknown');
    expect(d.hint).toBe("connect once by hand with `ssh -p 22422 -i '/tmp/test keys/id_ed25519' root@127.0.0.1` and check the fingerprint it shows (`sparehand help workers`)");
  });

  it('a changed host key: the known_hosts name with its port, then the same ssh', () => {
    const d = diagnoseSsh('@@@@@@@@@@@\nWARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!\n', worker);
    expect(d.hint).toContain("run `ssh-keygen -R '[127.0.0.1]:22422'` and connect once with `ssh -p 22422 -i '/tmp/test keys/id_ed25519' root@127.0.0.1`");
  });

  it('on port 22 with no key, the plain `ssh host`', () => {
    expect(diagnoseSsh('Host key verification failed.', { name: 'b', destination: 'box' }).hint).toContain('`ssh box`');
    expect(diagnoseSsh('REMOTE HOST IDENTIFICATION HAS CHANGED', { name: 'b', destination: 'me@box', port: 22 }).hint).toContain('`ssh-keygen -R box`');
  });
});
