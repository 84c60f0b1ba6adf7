// Commands the hook must leave alone whatever they run: already going through `sparehand run`, or `SPAREHAND=off`.
import { basename } from './kinds.js';
import { lex, type Token } from './lex.js';

// Fallback for text the lexer cannot follow: a word ending in sparehand(.js)(@version), options, then `run`.
const TEXT_RUN = /(?:^|[\s;&|()'"`/=])sparehand(?:\.js)?(?:@[^\s'"]*)?['"]?\s+(?:-\S+\s+)*['"]?run(?:['"]?\s|['"]?$)/;

const isSparehand = (v: string): boolean => {
  const b = basename(v);
  return b === 'sparehand' || b === 'sparehand.js' || b.startsWith('sparehand@');
};

/** True when the command already goes through `sparehand run`: any path, `node …/sparehand.js`, npx, env prefixes, `bash -c`. */
export function alreadyWrapped(command: string, depth = 0): boolean {
  if (typeof command !== 'string' || !command.includes('sparehand') || depth > 3) return false;
  let tokens: Token[];
  try {
    tokens = lex(command);
  } catch {
    return TEXT_RUN.test(command);
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.kind !== 'word' || !t.value.includes('sparehand')) continue;
    if (isSparehand(t.value)) {
      let j = i + 1;
      for (let n = tokens[j]; n?.kind === 'word' && n.value.startsWith('-'); n = tokens[++j]);
      const n = tokens[j];
      if (n?.kind === 'word' && n.value === 'run') return true;
    } else if (/[\s;&|]/.test(t.value) && alreadyWrapped(t.value, depth + 1)) {
      return true;
    }
  }
  return false;
}

/** True when some command in it carries `SPAREHAND=off` (as a prefix, an `export`, or an `env` argument). */
export function turnedOff(command: string): boolean {
  if (!command.includes('SPAREHAND=')) return false;
  try {
    return lex(command).some((t) => t.kind === 'word' && t.value === 'SPAREHAND=off');
  } catch {
    return command.includes('SPAREHAND=off');
  }
}
