// GitHub Copilot coding agent (hosted). Source: github/docs hooks-reference.md (commit 05da5bc3), read 2026-11-29.
import type { AgentSpec } from './types.js';

export const copilotAgent: AgentSpec = {
  id: 'copilot-agent',
  name: 'GitHub Copilot coding agent (hosted)',
  connection: 'none',
  why: "It runs in GitHub's cloud on a fresh clone: your workers and your sparehand are not there, and its hooks come only from the repository's .github/hooks/*.json.",
  facts: {
    sources: [{ title: 'GitHub Copilot hooks reference', url: 'https://docs.github.com/en/copilot/reference/hooks-reference', read: '2026-11-29' }],
    confirmed: [],
    documented: 'hooks-reference.md commit 05da5bc3',
    quirks: ['Under the cloud agent an "ask" answer is a deny (hooks-reference).'],
  },
  shellTools: [],
  sparehandName: 'bare',
  install: {
    targets: [],
  },
};
