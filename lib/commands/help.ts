// `sparehand help [COMMAND...|TOPIC]`: a command's help at any depth (`help worker add`), or a topic: one of the
// documents shipped in the package's docs/ folder, so that a hint can say `sparehand help config` wherever sparehand
// was installed.
import { readdirSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';
import { packageUrl } from '../package-files.js';
import type { SparehandCommand } from './command.js';

const DOCS = packageUrl('docs/');

/** The help topics: the documents shipped in docs/, by name without `.md`. */
function helpTopics(): string[] {
  try {
    return readdirSync(DOCS)
      .filter((f) => f.endsWith('.md'))
      .map((f) => f.slice(0, -3))
      .sort();
  } catch {
    return [];
  }
}

/**
 * The topics as they are typed: a topic named like a command (`run`, `classify`) is `run.md`, since `help run` is
 * the command's help; `help X.md` reaches any topic.
 */
function topicNames(program: Command): string[] {
  const commands = new Set(program.commands.map((c) => c.name()));
  return helpTopics().map((t) => (commands.has(t) ? `${t}.md` : t));
}

/** The topic `word` names (`config` or `config.md`), if any. */
function topicOf(word: string): string | undefined {
  const name = word.endsWith('.md') ? word.slice(0, -3) : word;
  return helpTopics().find((t) => t === name);
}

/** The names of the (sub)commands that `words` start with: `['worker', 'add']` for `worker add w h --port x`. */
export function commandPath(program: Command, words: readonly string[]): string[] {
  const path: string[] = [];
  let at = program;
  for (const w of words) {
    if (w.startsWith('-')) continue;
    const next = at.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (!next) break;
    path.push(next.name());
    at = next;
  }
  return path;
}

export function register(program: SparehandCommand, ctx: Context): void {
  // A command that has a document of its name says where it is, below its own help.
  for (const cmd of program.commands) {
    if (helpTopics().includes(cmd.name())) cmd.addHelpText('after', `\nThe whole story: \`sparehand help ${cmd.name()}.md\`\n`);
  }
  program
    .command('help')
    .description('help for a command (`help worker add`) or a topic (`help config`)')
    .argument('[words...]', 'a command, or a topic')
    .addHelpText('after', () => `\nTopics: ${topicNames(program).join(', ')}\n`)
    .action((words: string[]) => {
      const path = commandPath(program, words);
      if (path.length === words.length && !(words.length === 1 && words[0]!.endsWith('.md'))) {
        let cmd: Command = program;
        for (const name of path) cmd = cmd.commands.find((c) => c.name() === name)!;
        cmd.outputHelp();
        return 0;
      }
      const topic = words.length === 1 ? topicOf(words[0]!) : undefined;
      if (topic === undefined) {
        throw new SparehandError('USAGE', `no command or topic "${words.join(' ')}"`, {
          hint: `commands: ${program.commands.map((c) => c.name()).join(', ')}; topics: ${topicNames(program).join(', ')}`,
        });
      }
      ctx.stdout.write(readFileSync(new URL(`${topic}.md`, DOCS), 'utf8'));
      return 0;
    });
}
