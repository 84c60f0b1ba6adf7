import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { removeTomlField, setTomlString } from '../../lib/install/toml-trust.js';

const table = ['hooks', 'state', '/home/u/.codex/hooks.json:pre_tool_use:1:0'];

describe('TOML trust entry', () => {
  it("adds the entry keeping the user's text, and removes exactly it", () => {
    const user = '# my config\nmodel = "gpt-5"\n\n[features]\nhooks = true # yes\n';
    const out = setTomlString('c', user, table, 'trusted_hash', 'sha256:abc');
    expect(out.startsWith(user)).toBe(true);
    expect(out).toContain('[hooks.state."/home/u/.codex/hooks.json:pre_tool_use:1:0"]\ntrusted_hash = "sha256:abc"\n');
    expect(setTomlString('c', out, table, 'trusted_hash', 'sha256:abc')).toBe(out);
    const changed = setTomlString('c', out, table, 'trusted_hash', 'sha256:def');
    expect((parse(changed) as any).hooks.state[table[2]!].trusted_hash).toBe('sha256:def');
    expect(changed.split('trusted_hash').length).toBe(2);
    expect(removeTomlField('c', out, table, 'trusted_hash')).toBe(user);
  });
  it('updates an entry the tool wrote itself, keeping its other keys', () => {
    const user = `[hooks.state."${table[2]}"]\ntrusted_hash = "sha256:old"\nenabled = true\n`;
    const out = setTomlString('c', user, table, 'trusted_hash', 'sha256:new');
    expect(parse(out)).toEqual({ hooks: { state: { [table[2]!]: { trusted_hash: 'sha256:new', enabled: true } } } });
    expect(parse(removeTomlField('c', out, table, 'trusted_hash')!)).toEqual({ hooks: { state: { [table[2]!]: { enabled: true } } } });
  });
  it('a file holding only the entry goes away; an unparsable one is refused', () => {
    expect(removeTomlField('c', setTomlString('c', undefined, table, 'trusted_hash', 'sha256:x'), table, 'trusted_hash')).toBeUndefined();
    expect(() => setTomlString('/h/config.toml', 'a = ', table, 'trusted_hash', 'x')).toThrow(/cannot parse \/h\/config.toml/);
  });
});
