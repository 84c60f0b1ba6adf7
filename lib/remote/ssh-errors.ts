// Turns what ssh printed on stderr into one clear sentence and a fix (pure; tested with ssh's real wording).
export type SshFailure = 'host-key-changed' | 'host-key-unknown' | 'auth' | 'unreachable' | 'timeout' | 'dns' | 'other';

export interface SshDiagnosis {
  kind: SshFailure;
  message: string;
  hint: string;
}

/** Reads ssh's stderr after a failed connection. */
export function diagnoseSsh(stderr: string, worker: { name: string; destination: string }): SshDiagnosis {
  const w = `worker "${worker.name}" (${worker.destination})`;
  const firstLine = stderr.split('\n').map((l) => l.trim()).find((l) => l && !l.startsWith('@')) ?? 'ssh failed';
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i.test(stderr)) {
    return {
      kind: 'host-key-changed',
      message: `${w}: its host key has CHANGED since it was recorded in known_hosts; refusing to connect`,
      hint: 'if the worker was reinstalled, check its new key and run `ssh-keygen -R HOST`; otherwise someone may be intercepting the connection',
    };
  }
  if (/Host key verification failed|No (ED25519|RSA|ECDSA|[A-Z0-9-]+) host key is known/i.test(stderr)) {
    return {
      kind: 'host-key-unknown',
      message: `${w}: its host key is not in known_hosts (or does not match); refusing to connect`,
      hint: `connect once by hand (\`ssh ${worker.destination}\`) and check the fingerprint, or see docs/workers.md`,
    };
  }
  if (/Permission denied|Too many authentication failures|no mutual signature|Authentication failed/i.test(stderr)) {
    return {
      kind: 'auth',
      message: `${w}: authentication failed (${firstLine})`,
      hint: 'check the key (`--identity`), that it is in the worker\'s authorized_keys, and that ssh-agent has it loaded',
    };
  }
  if (/Could not resolve hostname|Name or service not known|nodename nor servname/i.test(stderr)) {
    return { kind: 'dns', message: `${w}: unknown host (${firstLine})`, hint: 'check the destination or your ~/.ssh/config alias' };
  }
  if (/timed out|Connection timed out/i.test(stderr)) {
    return { kind: 'timeout', message: `${w}: connection timed out`, hint: 'is the worker on and reachable from here?' };
  }
  if (/Connection refused|No route to host|Network is unreachable|Connection reset|Connection closed/i.test(stderr)) {
    return { kind: 'unreachable', message: `${w}: unreachable (${firstLine})`, hint: 'is the worker on, and sshd listening on that port?' };
  }
  return { kind: 'other', message: `${w}: ssh failed (${firstLine})`, hint: `try \`ssh ${worker.destination}\` by hand` };
}
