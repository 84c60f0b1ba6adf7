// Connects sparehand to the tool in the sandbox the way a user does: `sparehand agent install <tool>` with
// HOME set to the throwaway home. SPAREHAND_E2E_HOOK=toy|hand|none swaps in development stand-ins (a toy hook,
// or hand-written entries calling `sparehand agent hook`) for checking the harness before the product's own
// install exists; the suite's real runs use the product's install.
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
  writeFileSync(path, JSON.stringify(data, null, 2) + '\n');
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

// Hand-written hook entries calling the product's `agent hook`, where the entry's shape is known.
function writeHandHook(box: Sandbox, tool: string): void {
  const command = `"${process.execPath}" "${BIN}" agent hook --for ${tool}`;
  const claudeShape = (matcher: string) => ({ matcher, hooks: [{ type: 'command', command, timeout: 30 }] });
  switch (tool) {
    case 'claude-code':
      return mergeJson(join(box.home, '.claude', 'settings.json'), (d) => {
        d.hooks = { PreToolUse: [claudeShape('Bash')] };
      });
    case 'codex':
      return mergeJson(join(box.home, '.codex', 'hooks.json'), (d) => {
        d.hooks = { PreToolUse: [claudeShape('^Bash$')] };
      });
    case 'gemini-cli':
      return mergeJson(join(box.home, '.gemini', 'settings.json'), (d) => {
        d.hooks = { BeforeTool: [claudeShape('run_shell_command')] };
      });
    case 'factory-droid':
      return mergeJson(join(box.home, '.factory', 'settings.json'), (d) => {
        d.hooks = { PreToolUse: [claudeShape('Execute')] };
      });
    case 'copilot-cli':
      return mergeJson(join(box.home, '.copilot', 'hooks', 'sparehand.json'), (d) => {
        d.version = 1;
        d.hooks = { preToolUse: [{ type: 'command', bash: command, timeoutSec: 30 }] };
      });
    case 'cline': {
      const file = join(box.home, '.cline', 'hooks', 'PreToolUse');
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `#!/bin/sh\nexec ${command}\n`);
      chmodSync(file, 0o755);
      return;
    }
    default:
      throw new Error(`no hand-written hook for ${tool}`);
  }
}

/** `sparehand agent install <tool> [args]` in the sandbox (or a development stand-in, see above). */
export async function installSparehand(box: Sandbox, tool: string, env: Record<string, string>, args: string[] = []): Promise<InstallResult> {
  const mode = process.env.SPAREHAND_E2E_HOOK ?? 'install';
  if (mode === 'none') return { how: 'no hook (SPAREHAND_E2E_HOOK=none)', output: '' };
  if (mode === 'toy' && tool === 'claude-code') {
    writeToyClaudeHook(box);
    return { how: 'toy hook (SPAREHAND_E2E_HOOK=toy)', output: '' };
  }
  if (mode === 'hand') {
    writeHandHook(box, tool);
    return { how: 'hand-written entry (SPAREHAND_E2E_HOOK=hand)', output: '' };
  }
  const result = await execa(process.execPath, [BIN, 'agent', 'install', tool, ...args], {
    cwd: box.project,
    env,
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    all: true,
    timeout: 120_000,
  });
  return { how: `sparehand agent install ${[tool, ...args].join(' ')}`, exitCode: result.exitCode, output: String(result.all ?? '') };
}
