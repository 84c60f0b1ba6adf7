// Connects sparehand to the tool in the sandbox the way a user does: `sparehand agent install <tool>` with
// HOME set to the throwaway home. SPAREHAND_E2E_HOOK=toy|hand|none swaps in development stand-ins (a toy hook
// for Claude Code, the registry's own entries written without install, or no hook) for checking the harness
// apart from the product; the suite's real runs use the product's install.
import { execa } from 'execa';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BIN, type Sandbox } from './harness.js';

export interface InstallResult {
  how: string;
  exitCode?: number;
  output: string;
}

function mergeJson(path: string, change: (data: Record<string, any>) => void): void {
  let data: Record<string, any> = {};
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    // a new file
  }
  change(data);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
}

// A hook that rewrites exactly `npm test` for Claude Code: proves the harness without the product's hook.
function writeToyClaudeHook(box: Sandbox): void {
  const script = join(box.root, 'toy-hook.mjs');
  const replacement = `"${process.execPath}" "${BIN}" run --or-local -- 'npm test'`;
  writeFileSync(
    script,
    `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const p=JSON.parse(s);` +
      `if(p.tool_input&&p.tool_input.command==='npm test'){process.stdout.write(JSON.stringify({hookSpecificOutput:{hookEventName:'PreToolUse',permissionDecision:'allow',updatedInput:{...p.tool_input,command:${JSON.stringify(replacement)}}}}))}});\n`,
  );
  mergeJson(join(box.home, '.claude', 'settings.json'), (d) => {
    d.hooks = { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `"${process.execPath}" "${script}"` }] }] };
  });
}

// The registry's own hook entries written without `agent install` (user scope, no backup or merge care):
// a development aid for checking the product's hook in the real tools before its install exists.
async function writeRegistryEntries(box: Sandbox, tool: string, env: Record<string, string>): Promise<void> {
  const { AGENTS } = (await import('../../../lib/agents/index.js')) as unknown as { AGENTS: Record<string, { install: { targets: readonly any[] } }> };
  const spec = AGENTS[tool];
  if (!spec) throw new Error(`no such tool in the registry: ${tool}`);
  const hook = { node: process.execPath, script: BIN, agent: tool, shell: `"${process.execPath}" "${BIN}" agent hook --for ${tool}` };
  for (const target of spec.install.targets.filter((t) => t.scope === 'user')) {
    const path: string = target.path({ home: box.home, env });
    mkdirSync(dirname(path), { recursive: true });
    if (target.kind === 'file') {
      writeFileSync(path, target.content(hook));
      chmodSync(path, target.mode ?? 0o644);
      continue;
    }
    mergeJson(path, (d) => {
      Object.assign(d, { ...target.seed, ...d });
      let node: Record<string, any> = d;
      for (const key of target.arrayPath.slice(0, -1)) node = node[key] ??= {};
      const last = target.arrayPath[target.arrayPath.length - 1];
      node[last] = [...(node[last] ?? []), target.entry(hook)];
    });
  }
}

/** `sparehand agent install <tool> [args]` in the sandbox (or a development stand-in, see above). */
export async function installSparehand(
  box: Sandbox,
  tool: string,
  env: Record<string, string>,
  args: string[] = [],
  enclose?: (file: string, args: string[]) => [string, string[]],
): Promise<InstallResult> {
  const mode = process.env.SPAREHAND_E2E_HOOK ?? 'install';
  if (mode === 'none') return { how: 'no hook (SPAREHAND_E2E_HOOK=none)', output: '' };
  if (mode === 'toy' && tool === 'claude-code') {
    writeToyClaudeHook(box);
    return { how: 'toy hook (SPAREHAND_E2E_HOOK=toy)', output: '' };
  }
  if (mode === 'hand') {
    await writeRegistryEntries(box, tool, env);
    return { how: "the registry's entries written by hand (SPAREHAND_E2E_HOOK=hand)", output: '' };
  }
  return agentCommand(box, env, ['install', tool, ...args], enclose);
}

/** `sparehand agent <args>` in the sandbox, as the user runs it. */
export async function agentCommand(
  box: Sandbox,
  env: Record<string, string>,
  args: string[],
  enclose?: (file: string, args: string[]) => [string, string[]],
): Promise<InstallResult> {
  const [file, argv] = enclose ? enclose(process.execPath, [BIN, 'agent', ...args]) : [process.execPath, [BIN, 'agent', ...args]];
  const result = await execa(file, argv, {
    cwd: box.project,
    env,
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    all: true,
    timeout: 120_000,
  });
  return { how: `sparehand agent ${args.join(' ')}`, exitCode: result.exitCode, output: String(result.all ?? '') };
}
