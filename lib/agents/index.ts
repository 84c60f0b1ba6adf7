// The registry: every coding tool sparehand knows, one file each. Everything else reads this.
import { amp } from './amp.js';
import { antigravity } from './antigravity.js';
import { auggie } from './auggie.js';
import { claudeCode } from './claude-code.js';
import { cline } from './cline.js';
import { codex } from './codex.js';
import { copilotAgent } from './copilot-agent.js';
import { copilotCli } from './copilot-cli.js';
import { continueCli } from './continue.js';
import { copilotVscode } from './copilot-vscode.js';
import { crush } from './crush.js';
import { cursor } from './cursor.js';
import { devin } from './devin.js';
import { factoryDroid } from './factory-droid.js';
import { geminiCli } from './gemini-cli.js';
import { goose } from './goose.js';
import { kilo } from './kilo.js';
import { kimiCode } from './kimi-code.js';
import { kiro } from './kiro.js';
import { opencode } from './opencode.js';
import { qoder } from './qoder.js';
import { qwenCode } from './qwen-code.js';
import { trae } from './trae.js';
import { vibe } from './vibe.js';
import { whale } from './whale.js';
import type { AgentSpec } from './types.js';

const SPECS = {
  'claude-code': claudeCode,
  codex,
  'gemini-cli': geminiCli,
  antigravity,
  cursor,
  'copilot-cli': copilotCli,
  'copilot-vscode': copilotVscode,
  devin,
  opencode,
  kiro,
  cline,
  'factory-droid': factoryDroid,
  'qwen-code': qwenCode,
  auggie,
  kilo,
  continue: continueCli,
  crush,
  amp,
  'kimi-code': kimiCode,
  vibe,
  qoder,
  trae,
  goose,
  whale,
  'copilot-agent': copilotAgent,
  // Each spec is typed by its own payload; the core only passes a payload back to the spec that parsed it.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  // biome-ignore lint/suspicious/noExplicitAny: each tool's spec has its own payload type; `satisfies` checks each against its own
} satisfies Record<string, AgentSpec<any>>;

/** A tool's id (`claude-code`): a key of the registry, so that its line there is all a new tool adds to the list. */
export type AgentId = keyof typeof SPECS;

/** A spec as the registry holds it: its id one of the registry's keys (test/agents/contract.test.ts: its own key). */
export type RegisteredSpec = AgentSpec<unknown> & { id: AgentId };

export const AGENTS = SPECS as Record<AgentId, RegisteredSpec>;

export type { AgentSpec };
/** The tools' ids, in the registry's order (the order of `agent list`, docs/agents.md and `install all`). */
export const AGENT_IDS = Object.keys(AGENTS) as readonly AgentId[];

export const isAgentId = (s: string): s is AgentId => Object.hasOwn(AGENTS, s);

export const allAgents = (): RegisteredSpec[] => Object.values(AGENTS);

export { agentEnvVar } from './env-var.js';
