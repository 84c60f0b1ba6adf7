// Settings written by install validate against the tools' published schemas (copied verbatim into
// test/fixtures/vendor-schemas/ on 2026-11-29; where each came from: PROVENANCE.md there).
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { AGENTS } from '../../lib/agents/index.js';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { fixtureJson } from '../helpers/fixtures.js';

const schema = (name: string) => fixtureJson(`vendor-schemas/${name}`) as object;

describe('installed settings against the published schemas', () => {
  it('Claude Code (draft-07, SchemaStore) and Gemini CLI (2020-12, gemini-cli repo)', async () => {
    const home = tempDir('sparehand-home-');
    const env = { HOME: home, PATH: process.env.PATH! };
    const r = await sparehand(['agent', 'install', 'claude-code'], { env });
    expect(r.exitCode).toBe(0);
    expect((await sparehand(['agent', 'install', 'gemini-cli'], { env })).exitCode).toBe(0);
    const cases = [
      {
        ajv: new Ajv({ strict: false, allErrors: true, validateFormats: false }),
        schema: schema('claude-code/claude-code-settings.json'),
        path: AGENTS['claude-code']!.install.targets[0]!.path({ home, env }),
      },
      {
        ajv: new Ajv2020({ strict: false, allErrors: true, validateFormats: false }),
        schema: schema('gemini-cli/settings.schema.json'),
        path: AGENTS['gemini-cli']!.install.targets[0]!.path({ home, env }),
      },
    ];
    for (const c of cases) {
      const validate = c.ajv.compile(c.schema);
      const settings = JSON.parse(readFileSync(c.path, 'utf8')) as unknown;
      const ok = validate(settings);
      expect([c.path, ok ? [] : validate.errors]).toEqual([c.path, []]);
      // The schema really is checking hooks: a wrong type under hooks fails.
      expect(validate({ hooks: { PreToolUse: 'not a list', BeforeTool: 'not a list' } })).toBe(false);
    }
  });
});
