// A fake model server on 127.0.0.1 that the real coding-agent CLIs talk to. It plays the script in script.ts
// over whichever protocol a request arrives in, and records what it received so a test can assert on the tool
// results the real program sent back (and print them when it fails).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropic, augment, augmentSide, chat, gemini, type Protocol, responses } from './protocols.js';
import { commandOf, nextReply, pickShellTool, type ToolResult } from './script.js';

export interface RecordedRequest {
  method: string;
  path: string;
  protocol?: string;
  model?: string;
  tools?: string[];
  reply?: string;
}

export interface FakeModel {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Every request, in order. */
  requests: RecordedRequest[];
  /** Every distinct tool result the coding tool sent back, in order. */
  results: ToolResult[];
  /** Every shell command the model asked for, in order. */
  asked: string[];
  /** What the model received, for a failure message. */
  report(): string;
  close(): Promise<void>;
}

export interface FakeModelOptions {
  /** The command asked for on the first turn. */
  command?: string;
  /** At most this many shell calls per conversation. */
  maxCalls?: number;
  /** What the model does with a refusal naming a replacement: run it (default), or repeat the original. */
  onRefusal?: 'follow' | 'repeat';
  /** Follow sparehand's note in the instructions, as a model that reads its instructions does (default: no). */
  followNotes?: boolean;
}

// Augment's endpoints other than chat-stream that Auggie calls (each answered by augmentSide).
const AUGMENT_SIDE = /\/(get-models|settings\/get-mcp-(user|tenant)-configs|agents\/list-remote-tools|report-error)$/;

// Which protocol a request path belongs to.
function route(method: string, path: string): Protocol | 'count' | 'models' | 'augment-side' | undefined {
  if (method === 'GET' && /\/models\/?$/.test(path)) return 'models';
  if (method !== 'POST') return undefined;
  if (path.endsWith('/chat-stream')) return augment;
  if (AUGMENT_SIDE.test(path)) return 'augment-side';
  if (path.endsWith('/count_tokens') || path.includes(':countTokens')) return 'count';
  if (path.endsWith('/messages')) return anthropic;
  if (path.endsWith('/responses')) return responses;
  if (path.endsWith('/chat/completions')) return chat;
  if (path.includes(':streamGenerateContent') || path.includes(':generateContent')) return gemini;
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the server on an ephemeral port of 127.0.0.1. */
export async function startFakeModel(opts: FakeModelOptions = {}): Promise<FakeModel> {
  const play = {
    command: opts.command ?? 'npm test',
    maxCalls: opts.maxCalls ?? 3,
    onRefusal: opts.onRefusal ?? 'follow',
    followNotes: opts.followNotes ?? false,
  } as const;
  const requests: RecordedRequest[] = [];
  const results: ToolResult[] = [];
  const asked: string[] = [];
  const seen = new Set<string>();
  let counter = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const record: RecordedRequest = { method: req.method ?? '', path: url.pathname };
    requests.push(record);
    const text = await readBody(req);
    const kind = route(record.method, url.pathname);
    if (kind === 'models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }], models: [] }));
      return;
    }
    if (kind === 'augment-side') {
      // What Auggie reports as going wrong with an answer of ours (printed with every failure).
      if (url.pathname.endsWith('report-error')) record.reply = `body: ${text.slice(0, 600)}`;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(augmentSide(url.pathname, 'fake-model')));
      return;
    }
    if (kind === 'count') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: 10, totalTokens: 10 }));
      return;
    }
    if (!kind) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `fake model: no route for ${record.method} ${url.pathname}` } }));
      return;
    }
    const body = text ? JSON.parse(text) : {};
    const conv = kind.parse(body);
    record.protocol = kind.name;
    record.model = body.model ?? url.pathname.match(/models\/([^:/]+)/)?.[1];
    record.tools = conv.tools.map((t) => t.name);
    for (const r of conv.results) {
      const key = `${r.id}\u0000${r.text}`;
      if (!seen.has(key)) {
        seen.add(key);
        results.push(r);
      }
    }
    const reply = nextReply(conv, play);
    if (reply.kind === 'call') asked.push(commandOf(reply.args) ?? '?');
    record.reply = reply.kind === 'call' ? `${reply.tool} ${JSON.stringify(reply.args)}` : `text: ${reply.text}`;
    const stream = body.stream === true || url.pathname.includes(':streamGenerateContent');
    counter += 1;
    kind.send(res, reply, { body, id: `fake${counter}`, stream, model: record.model ?? 'fake-model' });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      requests.push({ method: 'ERROR', path: String(error instanceof Error ? error.stack : error) });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    results,
    asked,
    report() {
      const lines = [`fake model at 127.0.0.1:${port} received ${requests.length} request(s):`];
      for (const r of requests) {
        const shell = r.tools ? pickShellTool(r.tools.map((name) => ({ name, schema: {} })))?.name : undefined;
        lines.push(
          `  ${r.method} ${r.path}${r.protocol ? ` [${r.protocol}] model=${r.model} shell tool=${shell ?? 'none'} (${r.tools?.length ?? 0} tools)` : ''}${r.reply ? ` -> ${r.reply}` : ''}`,
        );
      }
      lines.push(`shell commands asked for: ${JSON.stringify(asked)}`);
      lines.push(`tool results received (${results.length}):`);
      for (const r of results) lines.push(`  [${r.id}] ${r.text.replace(/\n/g, '\n    ')}`);
      return lines.join('\n');
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
