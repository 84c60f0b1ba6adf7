// `agent test` reads answers without knowing the tool: check it against every tool's own encode.
import { describe, expect, it } from 'vitest';
import { allAgents } from '../../lib/agents/index.js';
import { decodeWire } from '../../lib/checks/decode-answer.js';

const ORIGINAL = 'npm test';
const REPLACEMENT = "/usr/bin/node /opt/sparehand/bin/sparehand.js run --or-local -- 'npm test'";
const REASON = `This command is heavy. Run this instead: ${REPLACEMENT}`;
const encoding = allAgents().filter((a) => a.encode && a.payload && a.samplePayload);

describe('decodeWire', () => {
  it.each(encoding.map((a) => [a.id, a] as const))('%s: reads its rewrite and its refusal', (_id, a) => {
    const payload = a.payload!().parse(a.samplePayload!(ORIGINAL, '/home/dev/app'));
    for (const approve of [false, true]) {
      const rewrite = a.encode!({ kind: 'rewrite', command: REPLACEMENT, approve, timeoutMs: 420_000 }, payload);
      // A tool that cannot rewrite (redirect only) answers a rewrite with nothing, or its own "leave alone".
      const left = (rewrite.stdout === '' || rewrite.stdout === a.leaveStdout) && rewrite.exitCode === 0;
      const expected = left ? { kind: 'leave' } : { kind: 'rewrite', command: REPLACEMENT };
      expect(decodeWire(rewrite, ORIGINAL)).toEqual(expected);
    }
    const refuse = a.encode!({ kind: 'refuse', reason: REASON, replacement: REPLACEMENT }, payload);
    // A tool whose only refusal would abort more than the call (Cline) leaves the call alone instead.
    const expected = refuse.stdout === '' && refuse.exitCode === 0 ? { kind: 'leave' } : { kind: 'refuse', reason: REASON };
    expect(decodeWire(refuse, ORIGINAL)).toEqual(expected);
  });

  it('tells invalid answers apart', () => {
    expect(decodeWire({ stdout: '', stderr: '', exitCode: 0 }, ORIGINAL)).toEqual({ kind: 'leave' });
    expect(decodeWire({ stdout: '{}\n', stderr: '', exitCode: 0 }, ORIGINAL)).toEqual({ kind: 'leave' });
    expect(decodeWire({ stdout: 'oops', stderr: '', exitCode: 0 }, ORIGINAL)).toEqual({ kind: 'invalid', why: 'stdout is not one JSON document: oops' });
    expect(decodeWire({ stdout: '', stderr: 'boom\nmore', exitCode: 1 }, ORIGINAL)).toEqual({ kind: 'invalid', why: 'exited 1: boom' });
    expect(decodeWire({ stdout: '', stderr: '', exitCode: 2 }, ORIGINAL)).toEqual({ kind: 'invalid', why: 'exit 2 with nothing on stderr' });
    expect(decodeWire({ stdout: '[1]', stderr: '', exitCode: 0 }, ORIGINAL)).toEqual({ kind: 'invalid', why: 'stdout is not a JSON object' });
    expect(decodeWire({ stdout: '{"permissionDecision":"deny"}', stderr: '', exitCode: 0 }, ORIGINAL)).toEqual({
      kind: 'invalid',
      why: 'a refusal without a reason',
    });
  });
});
