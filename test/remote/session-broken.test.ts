// A session's reading ends at the first frame that breaks it, even when frames that look well follow it in the same
// chunk of ssh's output: nothing after it reaches the terminal or decides the run (lib/remote/session.ts).
// The "worker" here is a hostile stand-in holding the session's key, as a worker program that went wrong would.
import { describe, expect, it } from 'vitest';
import type { Job } from '../../lib/remote/job.js';
import { openSession } from '../../lib/remote/session.js';
import { tempDir, testContext } from '../helpers/context.js';

const job: Job = {
  mode: 'pipe',
  dir: '.sparehand',
  key: 'p-0',
  slots: 1,
  folder: 0,
  record: 'test',
  rel: '.',
  command: 'true',
  skip: '',
  watch: false,
  deps: [],
  venv: '',
  programs: [],
  env: {},
  gen: '',
  newgen: 'g1',
};

// Reads the key (the preamble's first line), then writes its frames, each sealed as frames.ts seals, in one write.
const hostile = (frames: Array<[string, string]>) => `
const { createHmac } = require('node:crypto');
const frames = ${JSON.stringify(frames)};
let got = '';
let sent = false;
process.stdin.on('data', (d) => {
  got += d.toString('latin1');
  const nl = got.indexOf('\\n');
  if (sent || nl < 0) return;
  sent = true;
  const key = got.slice(0, nl);
  const bytes = frames.map(([type, payload], seq) => {
    const seal = createHmac('md5', Buffer.from(key, 'latin1')).update(seq + '\\0' + type + '\\0').update(payload).digest('hex').slice(0, 32);
    return type + ' ' + Buffer.byteLength(payload) + ' ' + seal + '\\n' + payload;
  });
  process.stdout.write(bytes.join(''), () => process.exit(0));
});
`;

describe('a session whose worker breaks the reading', () => {
  it('takes nothing that follows the breaking frame in the same chunk', async () => {
    const ctx = testContext();
    const session = openSession(ctx, {
      argv: [
        process.execPath,
        '-e',
        hostile([
          ['out', 'before\n'],
          ['job', 'not the worker’s to send'],
          ['out', 'after\n'],
          ['refused', 'a refusal the run would believe'],
        ]),
      ],
      env: { PATH: process.env.PATH },
      job,
      staging: { dir: () => undefined },
      root: tempDir('sparehand-root-'),
    });
    // The claim resolves when the reading ends (as lost: no claim frame came).
    const claimed = await session.claimed;
    await session.ended;
    session.close();
    expect(ctx.out()).toContain('before');
    expect(ctx.out()).not.toContain('after');
    expect(claimed).toEqual({ lost: true });
  });
});
