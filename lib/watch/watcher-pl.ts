// The per-project watcher (lib/watch/journal.ts starts it): watcher.pl, beside this module, says what it does and
// what the journal it writes holds.
import { perlFile } from '../perl-file.js';

export const WATCHER_PL = perlFile(new URL('./watcher.pl', import.meta.url));
