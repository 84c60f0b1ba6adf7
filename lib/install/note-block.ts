// The marked block in a tool's instruction file that asks the model to run heavy commands through sparehand.
export const BEGIN = '<!-- sparehand:begin -->';
export const END = '<!-- sparehand:end -->';

/** The note itself, naming sparehand as the tool's shell can call it. */
export function noteBlock(sparehand: string): string {
  return [
    BEGIN,
    '## Heavy commands: run them through sparehand',
    '',
    'Run test suites, builds, type checks and whole-project linters through sparehand, which runs them on a spare',
    'machine (or here, when no worker can be reached) and returns their output and exit status as usual:',
    '',
    '```sh',
    `${sparehand} run --or-local -- '<command>'`,
    '```',
    '',
    `For example: \`${sparehand} run --or-local -- 'npm test'\`. Quick reads (ls, cat, git status, grep), installs,`,
    'dev servers and anything interactive run as usual.',
    END,
  ].join('\n');
}

const blockRe = new RegExp(`${BEGIN}[\\s\\S]*?${END}`);

/** `text` with the block added (at the end) or refreshed in place. */
export function upsertNote(text: string | undefined, block: string): string {
  if (text === undefined || text.trim() === '') return `${block}\n`;
  if (blockRe.test(text)) return text.replace(blockRe, () => block);
  return `${text.replace(/\n*$/, '')}\n\n${block}\n`;
}

/** `text` without the block (and the blank line install put before it); undefined when nothing else is left. */
export function removeNote(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (!blockRe.test(text)) return text;
  const out = text.replace(new RegExp(`\\n*${blockRe.source}\\n?`), '\n').replace(/^\n/, '');
  return out.trim() === '' ? undefined : out;
}

/** Whether the file holds the block. */
export const hasNote = (text: string | undefined): boolean => text !== undefined && blockRe.test(text);
