// Turns what ssh printed on stderr into one clear sentence and a fix (pure; tested with ssh's real wording).
import type { SshWorker as Worker } from '../config.js';

/** A word as a person would type it: bare when the shell leaves it alone, else in single quotes. */
const word = (s: string): string => (/^[\w@%+=:,./~-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);
const command = (words: readonly string[]): string => words.map(word).join(' ');

export type SshFailure = 'host-key-changed' | 'host-key-unknown' | 'auth' | 'unreachable' | 'timeout' | 'dns' | 'sandbox' | 'other';

export interface SshDiagnosis {
  kind: SshFailure;
  message: string;
  hint: string;
}

/** The ssh command that reaches the worker as sparehand does (its port and key), to type by hand. */
export function sshByHand(worker: Pick<Worker, 'destination' | 'port' | 'identity'>): string {
  const port = worker.port === undefined ? [] : ['-p', String(worker.port)];
  const identity = worker.identity === undefined ? [] : ['-i', worker.identity];
  return command(['ssh', ...port, ...identity, worker.destination]);
}

/** The worker's name in known_hosts: `host`, or `[host]:port` off port 22. */
const knownHostsName = (worker: Pick<Worker, 'destination' | 'port'>): string => {
  const host = worker.destination.replace(/^[^@]*@/, '');
  return worker.port === undefined || worker.port === 22 ? host : `[${host}]:${worker.port}`;
};

/** Reads ssh's stderr after a failed connection. */
export function diagnoseSsh(stderr: string, worker: Pick<Worker, 'name' | 'destination' | 'port' | 'identity'>): SshDiagnosis {
  const w = `worker "${worker.name}" (${worker.destination})`;
  const byHand = sshByHand(worker);
  const firstLine =
    stderr
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l && !l.startsWith('@')) ?? 'ssh failed';
  // A coding tool's sandbox around this command: its proxy refused the host, or its filter refused the socket.
  const proxy = /^sparehand-proxy: (.*)$/m.exec(stderr)?.[1];
  if (proxy !== undefined) {
    return {
      kind: /refused/.test(proxy) ? 'sandbox' : 'unreachable',
      message: `${w}: ${proxy}`,
      hint: 'is the worker on, and allowed by the sandbox this command runs in?',
    };
  }
  if (/^(ssh: )?(socket|connect to host .*): Operation not permitted$/im.test(stderr)) {
    return { kind: 'sandbox', message: `${w}: the network is refused here (${firstLine})`, hint: 'a sandbox around this command refuses network connections' };
  }
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i.test(stderr)) {
    return {
      kind: 'host-key-changed',
      message: `${w}: its host key has CHANGED since it was recorded in known_hosts; refusing to connect`,
      hint: `if the worker was reinstalled, check its new key, run \`${command(['ssh-keygen', '-R', knownHostsName(worker)])}\` and connect once with \`${byHand}\`; otherwise someone may be intercepting the connection`,
    };
  }
  if (/Host key verification failed|No (ED25519|RSA|ECDSA|[A-Z0-9-]+) host key is known/i.test(stderr)) {
    return {
      kind: 'host-key-unknown',
      message: `${w}: its host key is not in known_hosts (or does not match); refusing to connect`,
      hint: `connect once by hand with \`${byHand}\` and check the fingerprint it shows (\`sparehand help workers\`)`,
    };
  }
  if (/Permission denied|Too many authentication failures|no mutual signature|Authentication failed/i.test(stderr)) {
    return {
      kind: 'auth',
      message: `${w}: authentication failed (${firstLine})`,
      hint: "check the key (`--identity`), that it is in the worker's authorized_keys, and that ssh-agent has it loaded",
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
  return { kind: 'other', message: `${w}: ssh failed (${firstLine})`, hint: `try \`${byHand}\` by hand` };
}
