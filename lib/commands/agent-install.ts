// `sparehand agent install|uninstall TOOL|all`: connect (or disconnect) coding tools through their own hook files.
import { allAgents } from '../agents/index.js';
import { confirmLines } from '../checks/trust-confirm.js';
import type { Context } from '../context.js';
import { installAgents, uninstallAgents } from '../connect.js';
import { TOOL_CHOICES, selectAgents } from '../install/select.js';
import { canWiden } from '../sandbox/settings.js';
import type { SparehandCommand } from './command.js';

export function register(agent: SparehandCommand, ctx: Context): void {
  agent
    .command('install')
    .description(
      "write each tool's hook into the file it reads (user level, or the project's with --project), plus a note in its instruction file where it has one; merges, keeps a .bak, idempotent. `all`: the tools found on this machine (their program on PATH, or their folder); name a tool to install it anyway",
    )
    .argument('<tool>', TOOL_CHOICES)
    .option('--project <dir>', 'install into this project instead of your home folder')
    .option('--dry-run', 'print the changes as a unified diff and write nothing')
    .option(
      '--trust',
      `for tools that run a hook only once trusted (${allAgents()
        .filter((a) => a.install.trust)
        .map((a) => a.name)
        .join(', ')}): write the trust entry too`,
    )
    .option(
      '--sandbox-access',
      `for tools with a sandbox of their own (${allAgents()
        .filter((a) => canWiden(a.sandbox?.settings))
        .map((a) => a.name)
        .join(
          ', ',
        )}): let a run inside it reach the configured workers and write sparehand's folders (only those), in your user settings; uninstall takes it back`,
    )
    .action(async (tool: string, opts: { project?: string; dryRun?: boolean; trust?: boolean; sandboxAccess?: boolean }) => {
      await installAgents(ctx, selectAgents(tool), { ...opts, onlyUsed: tool === 'all', confirm: confirmLines });
      return 0;
    });
  agent
    .command('uninstall')
    .description("remove exactly what install added (hook entries, sparehand's own files, notes, trust entries)")
    .argument('<tool>', TOOL_CHOICES)
    .option('--project <dir>', 'uninstall from this project instead of your home folder')
    .option('--dry-run', 'print the changes as a unified diff and write nothing')
    .action(async (tool: string, opts: { project?: string; dryRun?: boolean }) => {
      await uninstallAgents(ctx, selectAgents(tool), allAgents(), opts);
      return 0;
    });
}
