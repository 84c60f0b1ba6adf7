// docs/agents.md's per-tool part is generated from the registry: the committed file must match it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allAgents } from '../../lib/agents/index.js';
import { DOC_BEGIN, DOC_END, renderAgentsDoc, replaceGenerated } from '../../lib/install/agents-doc.js';

const doc = readFileSync(new URL('../../docs/agents.md', import.meta.url), 'utf8');

describe('docs/agents.md', () => {
  it('matches the registry (regenerate with `npm run docs:agents`)', () => {
    expect(replaceGenerated(doc, renderAgentsDoc(allAgents()))).toBe(doc);
  });

  it('has one section per tool with its sources, confirmations and connection', () => {
    const generated = doc.slice(doc.indexOf(DOC_BEGIN), doc.indexOf(DOC_END));
    for (const a of allAgents()) {
      expect(generated).toContain(`### ${a.name} (\`${a.id}\`)`);
      expect(generated).toContain(`**Connection:** ${a.connection}.`);
      for (const s of a.sources) expect(generated).toContain(`[${s.title}](${s.url}), read ${s.read}`);
      for (const c of a.confirmed) expect(generated).toContain(`${c.package}@${c.version} on ${c.date}`);
    }
  });

  it('replaceGenerated keeps the hand-written part and replaces only between the markers', () => {
    const text = `# Title\n\nintro\n\n${DOC_BEGIN}\nold\n${DOC_END}\n\nafter\n`;
    expect(replaceGenerated(text, `${DOC_BEGIN}\nnew\n${DOC_END}`)).toBe(`# Title\n\nintro\n\n${DOC_BEGIN}\nnew\n${DOC_END}\n\nafter\n`);
    expect(replaceGenerated('# T\n', `${DOC_BEGIN}\nx\n${DOC_END}`)).toBe(`# T\n\n${DOC_BEGIN}\nx\n${DOC_END}\n`);
  });
});
