// `--timeout 90s | 10m | 1h30m | 500ms | 45` (plain seconds) → milliseconds.
import { SparehandError } from '../errors.js';

const UNIT: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string): number {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== t) {
    throw new SparehandError('USAGE', `bad duration "${text}"`, { hint: 'use e.g. 90s, 10m, 1h30m' });
  }
  return parts.reduce((ms, p) => ms + Number(p[1]) * (UNIT[p[2] as string] ?? 0), 0);
}
