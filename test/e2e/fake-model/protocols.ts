// The wire protocols the coding tools speak, each as: request body → Conversation, Reply → response.
// Anthropic Messages, OpenAI Responses, OpenAI chat completions, Gemini generateContent, and Augment's own chat API.
import type { ServerResponse } from 'node:http';
import type { Conversation, JsonSchema, PastCall, Reply, ToolDecl, ToolResult } from './script.js';

type Json = Record<string, any>;

export interface Protocol {
  name: string;
  parse(body: Json): Conversation;
  send(res: ServerResponse, reply: Reply, ctx: { body: Json; id: string; stream: boolean; model: string }): void;
}

// Every string inside a value, joined: tool results come as strings, block lists or nested objects.
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).filter(Boolean).join('\n');
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.text === 'string') return o.text;
    // Block markers and ids are not the result's text.
    return Object.entries(o)
      .filter(([k]) => k !== 'type' && k !== 'id' && k !== 'name')
      .map(([, v]) => textOf(v))
      .filter(Boolean)
      .join('\n');
  }
  return value === undefined || value === null ? '' : String(value);
}

// Gemini writes schema types in upper case (OBJECT, STRING); the script reads lower case.
function lowerTypes(schema: any): JsonSchema {
  if (!schema || typeof schema !== 'object') return {};
  const out: any = { ...schema };
  if (typeof out.type === 'string') out.type = out.type.toLowerCase();
  if (out.properties) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, lowerTypes(v)]));
  }
  if (out.items) out.items = lowerTypes(out.items);
  return out;
}

function parseArgs(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function sse(res: ServerResponse, events: Array<[string | null, unknown]>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const [event, data] of events) {
    if (event) res.write(`event: ${event}\n`);
    res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  }
  res.end();
}

function json(res: ServerResponse, data: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(data));
}

export const anthropic: Protocol = {
  name: 'anthropic-messages',
  parse(body) {
    const tools: ToolDecl[] = (body.tools ?? []).filter((t: Json) => t.name).map((t: Json) => ({ name: t.name, schema: lowerTypes(t.input_schema) }));
    const calls: PastCall[] = [];
    const results: ToolResult[] = [];
    for (const m of body.messages ?? []) {
      if (!Array.isArray(m.content)) continue;
      for (const b of m.content) {
        if (b.type === 'tool_use') calls.push({ id: b.id, name: b.name, args: b.input });
        if (b.type === 'tool_result') results.push({ id: b.tool_use_id, text: (b.is_error ? '[is_error] ' : '') + textOf(b.content) });
      }
    }
    return { tools, calls, results, instructions: textOf(body.system) };
  },
  send(res, reply, { id, stream, model }) {
    const block = reply.kind === 'call' ? { type: 'tool_use', id: `toolu_${id}`, name: reply.tool, input: reply.args } : { type: 'text', text: reply.text };
    const stop = reply.kind === 'call' ? 'tool_use' : 'end_turn';
    const usage = { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const message = { id: `msg_${id}`, type: 'message', role: 'assistant', model, stop_sequence: null };
    if (!stream) return json(res, { ...message, content: [block], stop_reason: stop, usage });
    const start = reply.kind === 'call' ? { ...block, input: {} } : { type: 'text', text: '' };
    const delta = reply.kind === 'call' ? { type: 'input_json_delta', partial_json: JSON.stringify(reply.args) } : { type: 'text_delta', text: reply.text };
    sse(res, [
      ['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage } }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: start }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } }],
      ['message_stop', { type: 'message_stop' }],
    ]);
  },
};

export const responses: Protocol = {
  name: 'openai-responses',
  parse(body) {
    const tools: ToolDecl[] = (body.tools ?? [])
      .filter((t: Json) => t.type === 'function' && t.name)
      .map((t: Json) => ({ name: t.name, schema: lowerTypes(t.parameters) }));
    const calls: PastCall[] = [];
    const results: ToolResult[] = [];
    for (const item of Array.isArray(body.input) ? body.input : []) {
      if (item.type === 'function_call') calls.push({ id: item.call_id, name: item.name, args: parseArgs(item.arguments) });
      if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
        results.push({ id: item.call_id, text: textOf(item.output) });
      }
    }
    const system = (Array.isArray(body.input) ? body.input : []).filter((m: Json) => m.role === 'system' || m.role === 'developer');
    return { tools, calls, results, instructions: [textOf(body.instructions), ...system.map((m: Json) => textOf(m.content))].join('\n') };
  },
  send(res, reply, { id, model }) {
    const item =
      reply.kind === 'call'
        ? { type: 'function_call', id: `fc_${id}`, call_id: `call_${id}`, name: reply.tool, arguments: JSON.stringify(reply.args), status: 'completed' }
        : { type: 'message', id: `msg_${id}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: reply.text, annotations: [] }] };
    const response = { id: `resp_${id}`, object: 'response', created_at: Math.floor(Date.now() / 1000), model };
    const usage = {
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 20,
    };
    const events: Array<[string, unknown]> = [
      ['response.created', { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } }],
      [
        'response.output_item.added',
        {
          type: 'response.output_item.added',
          output_index: 0,
          item: { ...item, status: 'in_progress', ...(reply.kind === 'call' ? { arguments: '' } : { content: [] }) },
        },
      ],
    ];
    if (reply.kind === 'text') {
      events.push([
        'response.output_text.delta',
        { type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: reply.text },
      ]);
    }
    events.push(
      ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
      ['response.completed', { type: 'response.completed', response: { ...response, status: 'completed', output: [item], usage } }],
    );
    sse(res, events);
  },
};

export const chat: Protocol = {
  name: 'openai-chat-completions',
  parse(body) {
    const tools: ToolDecl[] = (body.tools ?? [])
      .filter((t: Json) => t.function?.name)
      .map((t: Json) => ({ name: t.function.name, schema: lowerTypes(t.function.parameters) }));
    const calls: PastCall[] = [];
    const results: ToolResult[] = [];
    for (const m of body.messages ?? []) {
      for (const c of m.tool_calls ?? []) calls.push({ id: c.id, name: c.function?.name, args: parseArgs(c.function?.arguments) });
      if (m.role === 'tool') results.push({ id: m.tool_call_id, text: textOf(m.content) });
    }
    const system = (body.messages ?? []).filter((m: Json) => m.role === 'system' || m.role === 'developer');
    return { tools, calls, results, instructions: system.map((m: Json) => textOf(m.content)).join('\n') };
  },
  send(res, reply, { id, stream, model }) {
    const created = Math.floor(Date.now() / 1000);
    const call =
      reply.kind === 'call' ? { id: `call_${id}`, type: 'function', function: { name: reply.tool, arguments: JSON.stringify(reply.args) } } : undefined;
    const finish = call ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
    const base = { id: `chatcmpl-${id}`, created, model };
    if (!stream) {
      const message = call ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: reply.kind === 'text' ? reply.text : '' };
      return json(res, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage });
    }
    const delta = call
      ? { role: 'assistant', content: null, tool_calls: [{ index: 0, ...call }] }
      : { role: 'assistant', content: reply.kind === 'text' ? reply.text : '' };
    sse(res, [
      [null, { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] }],
      [null, { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: finish }] }],
      [null, { ...base, object: 'chat.completion.chunk', choices: [], usage }],
      [null, '[DONE]'],
    ]);
  },
};

export const gemini: Protocol = {
  name: 'gemini-generate-content',
  parse(body) {
    const tools: ToolDecl[] = [];
    for (const t of body.tools ?? []) {
      for (const f of t.functionDeclarations ?? []) tools.push({ name: f.name, schema: lowerTypes(f.parametersJsonSchema ?? f.parameters) });
    }
    const calls: PastCall[] = [];
    const results: ToolResult[] = [];
    for (const c of body.contents ?? []) {
      for (const p of c.parts ?? []) {
        if (p.functionCall) calls.push({ id: p.functionCall.id ?? `${calls.length}`, name: p.functionCall.name, args: p.functionCall.args });
        if (p.functionResponse) results.push({ id: p.functionResponse.id ?? `${results.length}`, text: textOf(p.functionResponse.response) });
      }
    }
    return { tools, calls, results, instructions: textOf(body.systemInstruction) };
  },
  send(res, reply, { stream, model, body }) {
    // Side requests that want JSON (Gemini CLI's next-speaker and routing checks) get JSON text.
    const wantsJson = body.generationConfig?.responseMimeType === 'application/json';
    const text = reply.kind === 'text' && wantsJson ? JSON.stringify({ next_speaker: 'user', reasoning: 'done' }) : reply.kind === 'text' ? reply.text : '';
    const part = reply.kind === 'call' ? { functionCall: { name: reply.tool, args: reply.args } } : { text };
    const chunk = {
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 },
      modelVersion: model,
    };
    if (!stream) return json(res, chunk);
    sse(res, [[null, chunk]]);
  },
};

/**
 * Augment's chat API (what Auggie calls instead of a model API; docs/real-programs.md, "More tools"): POST
 * /chat-stream with the tools as `tool_definitions` ({name, input_schema_json}), earlier turns in `chat_history`
 * (the model's tool calls are response nodes of type 5, `tool_use`), this turn's tool results as `nodes` of type 1
 * (`tool_result_node`); the answer is newline-delimited JSON chunks `{text, nodes, stop_reason}`, a tool call being
 * a type-5 node with stop_reason 3.
 */
export const augment: Protocol = {
  name: 'augment-chat-stream',
  parse(body) {
    const tools: ToolDecl[] = (body.tool_definitions ?? [])
      .filter((t: Json) => t.name)
      .map((t: Json) => ({ name: t.name, schema: lowerTypes(parseArgs(t.input_schema_json)) }));
    const calls: PastCall[] = [];
    const results: ToolResult[] = [];
    const resultsIn = (nodes: unknown) => {
      for (const n of Array.isArray(nodes) ? nodes : []) {
        const r = (n as Json).tool_result_node;
        if ((n as Json).type === 1 && r) results.push({ id: r.tool_use_id, text: (r.is_error ? '[is_error] ' : '') + textOf(r.content) });
      }
    };
    for (const ex of body.chat_history ?? []) {
      resultsIn(ex.request_nodes);
      for (const n of ex.response_nodes ?? []) {
        if (n.type === 5 && n.tool_use) calls.push({ id: n.tool_use.tool_use_id, name: n.tool_use.tool_name, args: parseArgs(n.tool_use.input_json) });
      }
    }
    resultsIn(body.nodes);
    const instructions = [body.user_guidelines, body.workspace_guidelines, ...(Array.isArray(body.rules) ? body.rules : [])].map(textOf).join('\n');
    return { tools, calls, results, instructions };
  },
  send(res, reply, { id }) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk =
      reply.kind === 'call'
        ? {
            text: '',
            nodes: [{ id: 1, type: 5, content: '', tool_use: { tool_use_id: `toolu_${id}`, tool_name: reply.tool, input_json: JSON.stringify(reply.args) } }],
            stop_reason: 3,
          }
        : { text: reply.text, nodes: [{ id: 1, type: 0, content: reply.text }], stop_reason: 1 };
    res.end(`${JSON.stringify(chunk)}\n`);
  },
};

/** The answers of Augment's other endpoints that Auggie calls before it chats (docs/real-programs.md, "More tools"). */
export function augmentSide(path: string, model: string): unknown {
  // Without enable_hooks in the feature flags Auggie never runs a hook.
  if (path.endsWith('/get-models')) {
    return {
      default_model: model,
      models: [{ name: model, suggested_prefix_char_count: 0, suggested_suffix_char_count: 0 }],
      feature_flags: { enable_hooks: true },
    };
  }
  if (path.endsWith('/list-remote-tools')) return { tools: [] };
  return {};
}
