// A minimal JSON-RPC client over a child's stdio (newline-delimited JSON), for asking a tool what it sees.
import { SparehandError } from '../errors.js';
import { start } from '../process.js';

export interface RpcSession {
  call: (method: string, params?: unknown) => Promise<unknown>;
  notify: (method: string, params?: unknown) => void;
  close: () => void;
}

/** Starts `file args` and speaks JSON-RPC to it; every call fails after `timeoutMs`. */
export function rpcSession(file: string, args: readonly string[], opts: { env: NodeJS.ProcessEnv; cwd: string; timeoutMs: number }): RpcSession {
  const child = start(file, args, { env: opts.env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 1;
  let rest = '';
  child.stdout?.on('data', (d: Buffer) => {
    rest += d.toString();
    let nl: number;
    while ((nl = rest.indexOf('\n')) >= 0) {
      const line = rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      let msg: { id?: unknown; method?: unknown; result?: unknown; error?: { message?: string } };
      try {
        msg = JSON.parse(line) as typeof msg;
      } catch {
        continue;
      }
      // Requests and notifications from the server carry a method; only answers settle our calls.
      const w = typeof msg.id === 'number' && msg.method === undefined ? waiting.get(msg.id) : undefined;
      if (!w) continue;
      waiting.delete(msg.id as number);
      if (msg.error) w.reject(new SparehandError('INSTALL', `${file}: ${msg.error.message ?? 'error'}`));
      else w.resolve(msg.result);
    }
  });
  const fail = (why: string) => {
    for (const w of waiting.values()) w.reject(new SparehandError('INSTALL', `${file}: ${why}`));
    waiting.clear();
  };
  child.on('exit', () => fail('exited'));
  child.on('error', () => fail('could not run'));
  child.stdin?.on('error', () => undefined);
  const send = (msg: object) => child.stdin?.write(`${JSON.stringify(msg)}\n`);
  return {
    call(method, params) {
      const id = next++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new SparehandError('INSTALL', `${file} did not answer ${method} within ${opts.timeoutMs} ms`));
        }, opts.timeoutMs);
        waiting.set(id, {
          resolve: (v) => (clearTimeout(timer), resolve(v)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        });
        send({ id, method, ...(params === undefined ? {} : { params }) });
      });
    },
    notify: (method, params) => void send({ method, ...(params === undefined ? {} : { params }) }),
    close: () => {
      child.stdin?.end();
      child.kill();
    },
  };
}
