// Reads a hook's answer the way a tool would, without knowing the tool: left alone, rewritten to …, refused with …,
// or not a valid answer at all (for `agent test`).
import type { WireAnswer } from '../agents/types.js';

export type Outcome = { kind: 'leave' } | { kind: 'rewrite'; command: string } | { kind: 'refuse'; reason: string } | { kind: 'invalid'; why: string };

const REASON_KEY = /reason|message|errorMessage/i;
const DENY = new Set(['deny', 'block']);

function walk(v: unknown, key: string, visit: (key: string, v: unknown) => void): void {
  visit(key, v);
  if (Array.isArray(v)) for (const x of v) walk(x, key, visit);
  else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) walk(x, k, visit);
}

/** What a hook's output means for the call of `original`. */
export function decodeWire(wire: WireAnswer, original: string): Outcome {
  const stdout = wire.stdout.trim();
  const stderr = wire.stderr.trim();
  if (wire.exitCode === 2) return stderr ? { kind: 'refuse', reason: stderr } : { kind: 'invalid', why: 'exit 2 with nothing on stderr' };
  if (wire.exitCode !== 0) return { kind: 'invalid', why: `exited ${wire.exitCode}${stderr ? `: ${stderr.split('\n')[0]}` : ''}` };
  if (stdout === '') return { kind: 'leave' };
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    return { kind: 'invalid', why: `stdout is not one JSON document: ${stdout.slice(0, 120)}` };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { kind: 'invalid', why: 'stdout is not a JSON object' };
  let denied = false;
  const reasons: string[] = [];
  let command: string | undefined;
  walk(json, '', (k, v) => {
    if (typeof v === 'string' && DENY.has(v) && /decision|permission/i.test(k)) denied = true;
    if (k === 'cancel' && v === true) denied = true;
    if (typeof v === 'string' && REASON_KEY.test(k)) reasons.push(v);
    else if (typeof v === 'string' && v !== original && /\bsparehand\b/.test(v) && /\brun\b/.test(v)) command ??= v;
  });
  // The reason meant for the model names the replacement; a message for the user may come first.
  const reason = reasons.find((r) => /\bsparehand\b.*\brun\b/.test(r)) ?? reasons[0];
  if (denied) return reason ? { kind: 'refuse', reason } : { kind: 'invalid', why: 'a refusal without a reason' };
  if (command !== undefined) return { kind: 'rewrite', command };
  return { kind: 'leave' };
}

/** One line saying what the tool will do. */
export function describeOutcome(o: Outcome): string {
  switch (o.kind) {
    case 'leave':
      return 'left alone';
    case 'rewrite':
      return `rewritten to: ${o.command}`;
    case 'refuse':
      return `refused with: ${o.reason}`;
    case 'invalid':
      return `invalid answer (${o.why})`;
  }
}
