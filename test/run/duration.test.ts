import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../lib/run/duration.js';

describe('--timeout durations', () => {
  it('reads s, m, h, ms, combinations and plain seconds; refuses the rest', () => {
    expect([parseDuration('90s'), parseDuration('10m'), parseDuration('1h30m'), parseDuration('500ms'), parseDuration('45')]).toEqual([
      90_000, 600_000, 5_400_000, 500, 45_000,
    ]);
    expect(() => parseDuration('soon')).toThrow('bad duration "soon"');
    expect(() => parseDuration('10 m')).toThrow();
  });
});
