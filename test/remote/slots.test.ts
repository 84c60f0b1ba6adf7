import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freeSlots, lockAny, tryLock } from '../../lib/remote/slots.js';
import { stateDir } from '../../lib/paths.js';
import { testContext } from '../helpers/context.js';

describe('slot locks', () => {
  const w = { name: 'b', destination: 'b', slots: 2 };

  it('a slot is held once; released slots are free again; the worker with most free slots first, then config order', () => {
    const ctx = testContext();
    const a = tryLock(ctx, w, 0);
    expect(a?.slot).toBe(0);
    expect(tryLock(ctx, w, 0)).toBeUndefined();
    expect(freeSlots(ctx, w)).toBe(1);
    const second = { name: 'c', destination: 'c', slots: 1 };
    expect(lockAny(ctx, [w, second])).toMatchObject({ worker: w, slot: 1 });
    expect(lockAny(ctx, [w, second])).toMatchObject({ worker: second, slot: 0 });
    expect(lockAny(ctx, [w, second])).toBeUndefined();
    a?.release();
    expect(lockAny(ctx, [w, second])).toMatchObject({ worker: w, slot: 0 });
  });

  it('spreads runs: an idle worker is preferred to a busy one even when it comes later', () => {
    const ctx = testContext();
    const big = { name: 'big', destination: 'big', slots: 2 };
    const other = { name: 'other', destination: 'other', slots: 2 };
    expect(lockAny(ctx, [big, other])).toMatchObject({ worker: big, slot: 0 });
    expect(lockAny(ctx, [big, other])).toMatchObject({ worker: other, slot: 0 });
    expect(lockAny(ctx, [big, other])).toMatchObject({ worker: big, slot: 1 });
  });

  it('a lock left by a crashed run (its pid is gone) is taken over', () => {
    const ctx = testContext();
    tryLock(ctx, w, 0); // makes the folder
    writeFileSync(join(stateDir(ctx), 'slots', 'b.1.lock'), `999999999\n${hostname()}\n`);
    expect(freeSlots(ctx, w)).toBe(1);
    expect(tryLock(ctx, w, 1)?.slot).toBe(1);
    expect(freeSlots(ctx, w)).toBe(0);
  });
});
