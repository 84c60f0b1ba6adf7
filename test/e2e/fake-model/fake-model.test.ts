// The fake model itself (runs in the unit suite): its script, and each protocol's wire form, checked exactly,
// so a failure in the agents suite points at the real tool, not at the fake.
import { afterEach, describe, expect, test } from 'vitest';
import { asNoteSays, commandOf, nextReply, type Play, replacementIn, shellArgs, type ToolDecl } from './script.js';
import { type FakeModel, startFakeModel } from './server.js';

const reason =
  "Command blocked by PreToolUse hook: This command is heavy: sparehand runs it on a spare machine (or here when none is free). Run this instead: /usr/bin/node /opt/sparehand/bin/sparehand.js run --or-local -- 'npm test'. Command: npm test";

describe('replacementIn', () => {
  test('finds the replacement in a Codex refusal', () => {
    expect(replacementIn(reason)).toBe("/usr/bin/node /opt/sparehand/bin/sparehand.js run --or-local -- 'npm test'");
  });
  test('prefers a back-quoted command', () => {
    expect(replacementIn('Run `sparehand run --or-local -- npm test` instead.')).toBe('sparehand run --or-local -- npm test');
  });
  test('quoted node and script paths', () => {
    expect(replacementIn(`use '/a b/node' '/a b/sparehand.js' run --or-local -- 'npm test' now`)).toBe(
      `'/a b/node' '/a b/sparehand.js' run --or-local -- 'npm test'`,
    );
  });
  test('no replacement in an ordinary denial', () => {
    expect(replacementIn('Permission to use Bash with command npm test has been denied.')).toBeUndefined();
  });
});

describe('shellArgs', () => {
  const tool = (name: string, schema: ToolDecl['schema']): ToolDecl => ({ name, schema });
  test('Codex exec_command: {cmd}', () => {
    expect(
      shellArgs(tool('exec_command', { type: 'object', properties: { cmd: { type: 'string' }, workdir: { type: 'string' } }, required: ['cmd'] }), 'npm test'),
    ).toEqual({ cmd: 'npm test' });
  });
  test('an argv command gets bash -lc', () => {
    expect(shellArgs(tool('shell', { properties: { command: { type: 'array', items: { type: 'string' } } } }), 'npm test')).toEqual({
      command: ['bash', '-lc', 'npm test'],
    });
  });
  test('Cline run_commands: {commands: [...]}', () => {
    expect(shellArgs(tool('run_commands', { properties: { commands: { type: 'array' } }, required: ['commands'] }), 'npm test')).toEqual({
      commands: ['npm test'],
    });
  });
  test('droid Execute: required fields filled from the schema', () => {
    const schema = {
      properties: {
        command: { type: 'string' },
        summary: { type: 'string' },
        riskLevel: { type: 'string', enum: ['low', 'medium', 'high'] },
        timeout: { type: 'number' },
      },
      required: ['command', 'summary', 'riskLevel'],
    };
    expect(shellArgs(tool('Execute', schema), 'npm test')).toEqual({ command: 'npm test', summary: 'Run the project tests', riskLevel: 'low' });
  });
  test('Auggie launch-process: waits, a minute at most, in the workspace', () => {
    const schema = {
      properties: {
        command: { type: 'string' },
        wait: { type: 'boolean' },
        max_wait_seconds: { type: 'number' },
        cwd: { type: 'string' },
        keep_stdin_open: { type: 'boolean' },
      },
      required: ['command', 'wait', 'max_wait_seconds', 'cwd'],
    };
    expect(shellArgs(tool('launch-process', schema), 'npm test')).toEqual({ command: 'npm test', wait: true, max_wait_seconds: 60, cwd: '.' });
  });
  test('commandOf reads every form back', () => {
    expect([commandOf({ cmd: 'a' }), commandOf({ command: ['bash', '-lc', 'b'] }), commandOf('{"commands":["c"]}')]).toEqual(['a', 'b', 'c']);
  });
});

describe('nextReply', () => {
  const play: Play = { command: 'npm test', onRefusal: 'follow', maxCalls: 3 };
  const bash: ToolDecl = { name: 'Bash', schema: { properties: { command: { type: 'string' } } } };
  test('side requests without a shell tool get text', () => {
    expect(nextReply({ tools: [], calls: [], results: [] }, play)).toEqual({ kind: 'text', text: 'OK.' });
  });
  test('asks for the command, follows a redirect once, then stops', () => {
    const first = nextReply({ tools: [bash], calls: [], results: [] }, play);
    expect(first).toEqual({ kind: 'call', tool: 'Bash', args: { command: 'npm test' } });
    const calls = [{ id: '1', name: 'Bash', args: { command: 'npm test' } }];
    const second = nextReply({ tools: [bash], calls, results: [{ id: '1', text: reason }] }, play);
    expect(second).toEqual({ kind: 'call', tool: 'Bash', args: { command: "/usr/bin/node /opt/sparehand/bin/sparehand.js run --or-local -- 'npm test'" } });
    const calls2 = [...calls, { id: '2', name: 'Bash', args: (second as { args: unknown }).args }];
    const results2 = [
      { id: '1', text: reason },
      { id: '2', text: reason },
    ];
    expect(nextReply({ tools: [bash], calls: calls2, results: results2 }, play)).toEqual({ kind: 'text', text: 'Finished.' });
  });
  test('a model that repeats the original after a refusal asks once more, then stops', () => {
    const repeat: Play = { ...play, onRefusal: 'repeat' };
    const calls = [{ id: '1', name: 'Bash', args: { command: 'npm test' } }];
    expect(nextReply({ tools: [bash], calls, results: [{ id: '1', text: reason }] }, repeat)).toEqual({
      kind: 'call',
      tool: 'Bash',
      args: { command: 'npm test' },
    });
    const calls2 = [...calls, { id: '2', name: 'Bash', args: { command: 'npm test' } }];
    expect(
      nextReply(
        {
          tools: [bash],
          calls: calls2,
          results: [
            { id: '1', text: reason },
            { id: '2', text: reason },
          ],
        },
        repeat,
      ),
    ).toEqual({ kind: 'text', text: 'Finished.' });
  });
  test("a model that follows its instructions runs the command as sparehand's note spells it", () => {
    const note = "## Heavy commands\n\n```sh\n/usr/bin/node /opt/x/bin/sparehand.js run --or-local -- '<command>'\n```\n";
    const wrapped = "/usr/bin/node /opt/x/bin/sparehand.js run --or-local -- 'npm test'";
    expect(asNoteSays(note, 'npm test')).toBe(wrapped);
    expect(nextReply({ tools: [bash], calls: [], results: [], instructions: note }, { ...play, followNotes: true })).toEqual({
      kind: 'call',
      tool: 'Bash',
      args: { command: wrapped },
    });
    // Without a note, or not following notes, the command as written.
    expect(nextReply({ tools: [bash], calls: [], results: [], instructions: 'Be brief.' }, { ...play, followNotes: true })).toEqual({
      kind: 'call',
      tool: 'Bash',
      args: { command: 'npm test' },
    });
    expect(nextReply({ tools: [bash], calls: [], results: [], instructions: note }, play)).toEqual({
      kind: 'call',
      tool: 'Bash',
      args: { command: 'npm test' },
    });
  });
  test('finishes once the command ran through sparehand', () => {
    const calls = [{ id: '1', name: 'Bash', args: { command: 'npm test' } }];
    expect(nextReply({ tools: [bash], calls, results: [{ id: '1', text: 'SPAREHAND_RUN=1' }] }, play)).toEqual({ kind: 'text', text: 'Done: the tests ran.' });
  });
});

describe('wire protocols', () => {
  let fake: FakeModel | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${fake!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return res.text();
  };
  const events = (text: string) =>
    text
      .split('\n\n')
      .filter(Boolean)
      .map((block) => {
        const event = block.match(/^event: (.*)$/m)?.[1];
        const data = block.match(/^data: (.*)$/m)![1]!;
        return event ? [event, data === '[DONE]' ? data : JSON.parse(data)] : data === '[DONE]' ? data : JSON.parse(data);
      });

  test('Anthropic Messages: a tool_use block streamed as SSE, and the tool result recorded', async () => {
    fake = await startFakeModel();
    const tools = [{ name: 'Bash', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }];
    const first = events(await post('/v1/messages', { model: 'm', stream: true, tools, messages: [{ role: 'user', content: 'go' }] }));
    expect(first.map((e) => (e as [string])[0])).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(first[1]).toEqual([
      'content_block_start',
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_fake1', name: 'Bash', input: {} } },
    ]);
    expect(first[2]).toEqual([
      'content_block_delta',
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"command":"npm test"}' } },
    ]);
    expect(first[4]).toEqual([
      'message_delta',
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 10 } },
    ]);
    const history = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_fake1', name: 'Bash', input: { command: 'npm test' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_fake1', content: [{ type: 'text', text: 'SPAREHAND_RUN=1' }] }] },
    ];
    const second = events(await post('/v1/messages', { model: 'm', stream: true, tools, messages: history }));
    expect(second[2]).toEqual(['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Done: the tests ran.' } }]);
    expect(fake.results).toEqual([{ id: 'toolu_fake1', text: 'SPAREHAND_RUN=1' }]);
  });

  test('OpenAI Responses: a function_call item', async () => {
    fake = await startFakeModel();
    const tools = [{ type: 'function', name: 'exec_command', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } }];
    const out = events(await post('/v1/responses', { model: 'm', stream: true, tools, input: [{ type: 'message', role: 'user', content: 'go' }] }));
    expect(out.map((e) => (e as [string])[0])).toEqual(['response.created', 'response.output_item.added', 'response.output_item.done', 'response.completed']);
    const item = { type: 'function_call', id: 'fc_fake1', call_id: 'call_fake1', name: 'exec_command', arguments: '{"cmd":"npm test"}', status: 'completed' };
    expect(out[2]).toEqual(['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }]);
    expect((out[3] as [string, { response: { output: unknown[]; status: string } }])[1].response.output).toEqual([item]);
  });

  test('OpenAI chat completions: tool_calls, streamed and not', async () => {
    fake = await startFakeModel();
    const tools = [{ type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];
    const body = { model: 'm', tools, messages: [{ role: 'user', content: 'go' }] };
    const call = { id: 'call_fake1', type: 'function', function: { name: 'bash', arguments: '{"command":"npm test"}' } };
    const streamed = events(await post('/v1/chat/completions', { ...body, stream: true }));
    expect((streamed[0] as { choices: unknown[] }).choices).toEqual([
      { index: 0, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, ...call }] }, finish_reason: null },
    ]);
    expect((streamed[1] as { choices: unknown[] }).choices).toEqual([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]);
    expect(streamed[3]).toBe('[DONE]');
    const plain = JSON.parse(await post('/v1/chat/completions', body)) as { choices: unknown[] };
    expect(plain.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: null, tool_calls: [{ ...call, id: 'call_fake2' }] }, finish_reason: 'tool_calls' },
    ]);
  });

  test('Gemini streamGenerateContent: a functionCall part; functionResponse recorded', async () => {
    fake = await startFakeModel();
    const tools = [
      { functionDeclarations: [{ name: 'run_shell_command', parametersJsonSchema: { type: 'object', properties: { command: { type: 'string' } } } }] },
    ];
    const path = '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse';
    const out = events(await post(path, { tools, contents: [{ role: 'user', parts: [{ text: 'go' }] }] }));
    expect((out[0] as { candidates: unknown[] }).candidates).toEqual([
      { content: { role: 'model', parts: [{ functionCall: { name: 'run_shell_command', args: { command: 'npm test' } } }] }, finishReason: 'STOP', index: 0 },
    ]);
    const contents = [
      { role: 'user', parts: [{ text: 'go' }] },
      { role: 'model', parts: [{ functionCall: { name: 'run_shell_command', args: { command: 'npm test' } } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'run_shell_command', response: { output: 'SPAREHAND_RUN=1' } } }] },
    ];
    await post(path, { tools, contents });
    expect(fake.results).toEqual([{ id: 'c1', text: 'SPAREHAND_RUN=1' }]);
  });

  test("Augment's API: get-models with hooks on, a tool_use node, and the tool_result node recorded", async () => {
    fake = await startFakeModel();
    const models = JSON.parse(await post('/get-models', {})) as { feature_flags: Record<string, unknown>; models: unknown[] };
    expect(models.feature_flags).toEqual({ enable_hooks: true });
    expect(JSON.parse(await post('/agents/list-remote-tools', {}))).toEqual({ tools: [] });
    const tool_definitions = [
      { name: 'launch-process', input_schema_json: JSON.stringify({ type: 'object', properties: { command: { type: 'string' } }, required: ['command'] }) },
    ];
    const first = (await post('/chat-stream', { message: 'go', chat_history: [], tool_definitions, nodes: [] }))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(first).toEqual([
      {
        text: '',
        nodes: [{ id: 1, type: 5, content: '', tool_use: { tool_use_id: 'toolu_fake1', tool_name: 'launch-process', input_json: '{"command":"npm test"}' } }],
        stop_reason: 3,
      },
    ]);
    const chat_history = [{ request_message: 'go', response_text: '', response_nodes: first[0].nodes }];
    const nodes = [{ id: 1, type: 1, tool_result_node: { tool_use_id: 'toolu_fake1', content: 'SPAREHAND_RUN=1', is_error: false } }];
    const second = JSON.parse((await post('/chat-stream', { message: '', chat_history, tool_definitions, nodes })).trim()) as {
      stop_reason: number;
      text: string;
    };
    expect([second.stop_reason, second.text]).toEqual([1, 'Done: the tests ran.']);
    expect(fake.results).toEqual([{ id: 'toolu_fake1', text: 'SPAREHAND_RUN=1' }]);
  });
});
