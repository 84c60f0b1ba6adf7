import { describe, expect, it } from 'vitest';
import { hasNote, noteBlock, removeNote, upsertNote } from '../../lib/install/note-block.js';

describe('note block', () => {
  const block = noteBlock('sparehand');
  it("adds, refreshes and removes the marked block, leaving the user's text", () => {
    const user = '# My rules\n\nBe nice.\n';
    const once = upsertNote(user, block);
    expect(once).toBe(`${user}\n${block}\n`);
    expect(upsertNote(once, block)).toBe(once);
    const refreshed = upsertNote(once, noteBlock('"/n" "/s"'));
    expect(refreshed).toContain(`"/n" "/s" run --or-local -- 'npm test'`);
    expect(refreshed.startsWith(user)).toBe(true);
    expect(removeNote(once)).toBe(user);
    expect(hasNote(once)).toBe(true);
  });
  it('a file that held only the note goes away', () => {
    expect(removeNote(upsertNote(undefined, block))).toBeUndefined();
    expect(block).toContain("sparehand run --or-local -- '<command>'");
  });
});
