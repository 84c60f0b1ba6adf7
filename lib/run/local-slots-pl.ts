// The Perl that holds this machine's local slots (local-slots.ts): what both of its programs share
// (local-slots-own.pl: files opened safely), then each program's own (take, peek). See the .pl files.
import { perlFile } from '../perl-file.js';

const OWN_PL = perlFile(new URL('./local-slots-own.pl', import.meta.url));

/** Takes a ticket, waits its turn, takes a slot and holds it until stdin closes (local-slots-take.pl). */
export const TAKE_PL = `${OWN_PL}\n${perlFile(new URL('./local-slots-take.pl', import.meta.url))}`;

/** Which slots are held and which tickets wait, changing nothing (local-slots-peek.pl). */
export const PEEK_PL = `${OWN_PL}\n${perlFile(new URL('./local-slots-peek.pl', import.meta.url))}`;
