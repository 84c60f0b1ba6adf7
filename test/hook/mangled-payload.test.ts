// A payload whose folder is not a string (fast-check found `working_directory: {}` for Cursor): the answer is still
// one valid answer or nothing, never an exception out of answerFor (cursor.ts reads the folder only when it is a string) (the hook process would fail open, a caller in
// process would not).
import { describe, expect, it } from 'vitest';
import { answerFor } from '../../lib/hook/answer.js';
import { tempDir } from '../helpers/context.js';

const home = tempDir();
const ctx = { home, cwd: home, env: { HOME: home, PATH: '/usr/bin:/bin', SPAREHAND_NO_PROC: '1' } };

describe('a mangled folder in the payload', () => {
  it.each([{}, [], 7, null])('working_directory %j: answered as if it named none', async (folder) => {
    for (const command of ['ls', 'npm test']) {
      const text = JSON.stringify({ conversation_id: 'c', generation_id: 'g', tool_name: 'Shell', tool_input: { command, working_directory: folder } });
      const a = await answerFor(ctx, 'cursor', text);
      expect([a.exitCode, a.stderr]).toEqual([0, '']);
      expect(() => JSON.parse(a.stdout)).not.toThrow();
    }
  });
});
