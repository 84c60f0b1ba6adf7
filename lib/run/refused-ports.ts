// Reads a command's output on a worker for a connection to a localhost port that was refused (`connect
// ECONNREFUSED 127.0.0.1:5432`, `Connection refused` with a port): most likely a service that runs on this machine,
// which the run can forward (lib/run/services.ts). Bounded: only the last part of a long line is kept.
import { servicesLine } from './services.js';

const LINE_MAX = 4096;
const PORTS_MAX = 8;

/** `ECONNREFUSED`, or "Connection refused" / "connection refused" (Python, Go, curl, libpq, Ruby, Java). */
const REFUSED = /ECONNREFUSED|connection refused|Connection refused/;
/**
 * A loopback host, then its port within a few characters: `127.0.0.1:5432`, `[::1]:6379`, `localhost port 8080`,
 * `"localhost" (127.0.0.1), port 5432`, `localhost/127.0.0.1:5432`, `localhost:6379`.
 */
const LOOPBACK_PORT = /(?:localhost|127\.0\.0\.1|::1)\b[^\n]{0,40}?(?:port\s+|:)(\d{1,5})\b/gi;

/** The ports a line says a connection to was refused, if it says so. */
export function refusedPortsIn(line: string): number[] {
  if (!REFUSED.test(line)) return [];
  const ports: number[] = [];
  for (const m of line.matchAll(LOOPBACK_PORT)) {
    const p = Number(m[1]);
    if (p >= 1 && p <= 65535) ports.push(p);
  }
  return ports;
}

/** Takes the output as it streams; `ports` are those refused, in the order first seen. */
export class RefusedPorts {
  private rest = '';
  readonly ports: number[] = [];

  push(chunk: Buffer): void {
    const lines = (this.rest + chunk.toString('latin1')).split('\n');
    this.rest = (lines.pop() ?? '').slice(-LINE_MAX);
    for (const l of lines) this.take(l);
  }

  /** The output has ended: its last line (with no newline) is read too. */
  end(): number[] {
    this.take(this.rest);
    this.rest = '';
    return this.ports;
  }

  private take(line: string): void {
    for (const p of refusedPortsIn(line.slice(-LINE_MAX))) if (!this.ports.includes(p) && this.ports.length < PORTS_MAX) this.ports.push(p);
  }
}

/** The one line a run says for `ports` refused on `worker` that it did not forward. */
export function refusedLine(worker: string, ports: readonly number[]): string {
  const which = ports.map((p) => `localhost:${p}`).join(', ');
  return `the command's connection to ${which} was refused on ${worker}: if that is a service on this machine, add ${servicesLine(ports)} to the config (or to the project's entry under "projects") to forward it; see \`sparehand help run.md\`, "Services on this machine"`;
}
