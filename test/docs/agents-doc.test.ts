// docs/agents.md's per-tool part and docs/environment.md's table are generated from the registry; what they show of
// the hook's answers is what the hook process really sends.
import { mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { agentEnvVar, allAgents } from '../../lib/agents/index.js';
import { DOC_BEGIN, DOC_END, renderAgentsDoc, renderEnvironmentDoc, replaceGenerated } from '../../lib/docs/agents-doc.js';
import { BIN, sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';

const read = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');
const doc = read('agents.md');

describe('docs/agents.md', () => {
  it('matches the registry (regenerate with `npm run docs:agents`)', async () => {
    expect(replaceGenerated(doc, await renderAgentsDoc(allAgents()))).toBe(doc);
  });

  it('has one section per tool with its sources, confirmations and connection', () => {
    const generated = doc.slice(doc.indexOf(DOC_BEGIN), doc.indexOf(DOC_END));
    for (const a of allAgents()) {
      expect(generated).toContain(`### ${a.name} (\`${a.id}\`)`);
      expect(generated).toContain(`**Connection:** ${a.connection}.`);
      for (const s of a.facts.sources) expect(generated).toContain(`[${s.title}](${s.url}), read ${s.read}`);
      for (const c of a.facts.confirmed) expect(generated).toContain(`${c.package}@${c.version} on ${c.date}`);
    }
  });

  it.each(
    allAgents()
      .filter((a) => a.samplePayload && (a.connection === 'rewrite' || a.connection === 'redirect'))
      .map((a) => [a.id, a] as const),
  )('%s: the answer shown is what `sparehand agent hook` prints for that payload', async (id, a) => {
    const home = tempDir('sparehand-home-');
    mkdirSync(join(home, 'bin'));
    symlinkSync(BIN, join(home, 'bin', 'sparehand'));
    const answer = async (env: Record<string, string> = {}) => {
      const r = await sparehand(['agent', 'hook', '--for', id], {
        input: JSON.stringify(a.samplePayload!('npm test', '/home/dev/app')),
        env: { HOME: tempDir('sparehand-home-'), PATH: `${join(home, 'bin')}:/usr/bin:/bin`, ...env },
      });
      // As the doc shows it: sparehand installed globally, node in /usr/bin.
      const shown = (s: string) =>
        s.trim().replaceAll(quote([process.execPath, realpathSync(BIN)]), '/usr/bin/node /usr/lib/node_modules/sparehand/bin/sparehand.js');
      return [r.stdout.trim() && `stdout: ${shown(r.stdout)}`, r.stderr.trim() && `stderr: ${shown(r.stderr)}`, `exit ${r.exitCode}`]
        .filter(Boolean)
        .join('\n');
    };
    const section = doc.slice(doc.indexOf(`### ${a.name} (\`${id}\`)`));
    expect(section).toContain(`${a.connection === 'redirect' ? 'Refusal' : 'Rewrite'}:\n\n\`\`\`text\n${await answer()}\n\`\`\``);
    if (a.rewriteOptIn) expect(section).toContain(`\`\`\`text\n${await answer({ [agentEnvVar(id)]: 'rewrite' })}\n\`\`\``);
  });

  it('replaceGenerated keeps the hand-written part and replaces only between the markers', () => {
    const text = `# Title\n\nintro\n\n${DOC_BEGIN}\nold\n${DOC_END}\n\nafter\n`;
    expect(replaceGenerated(text, `${DOC_BEGIN}\nnew\n${DOC_END}`)).toBe(`# Title\n\nintro\n\n${DOC_BEGIN}\nnew\n${DOC_END}\n\nafter\n`);
    expect(replaceGenerated('# T\n', `${DOC_BEGIN}\nx\n${DOC_END}`)).toBe(`# T\n\n${DOC_BEGIN}\nx\n${DOC_END}\n`);
  });
});

describe('docs/environment.md', () => {
  it("matches the registry: every hooked tool's off switch, every opt-in", () => {
    const env = read('environment.md');
    expect(replaceGenerated(env, renderEnvironmentDoc(allAgents()))).toBe(env);
    for (const a of allAgents().filter((a) => a.payload)) expect(env).toContain(`\`${agentEnvVar(a.id)}\``);
  });
});
