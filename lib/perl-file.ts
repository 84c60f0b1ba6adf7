// The Perl sparehand runs (the worker program, the watchers, the local slots' keeper) is kept in `.pl` files beside
// the modules that start it, so that `perl -c` checks it (test/perl/compiles.test.ts) and an error names its file and
// line. The bundles carry the text (scripts/build.js inlines each `perlFile(new URL('./x.pl', import.meta.url))`);
// the modules tsc builds and the tests read the file itself.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A `.pl` file's text as it is run: without its opening comment (it says what the file is for; it is not sent), and
 * with a `#line` directive, so that Perl names `lib/…/x.pl` and the file's own line in what it reports.
 */
export function perlSource(name: string, text: string): string {
  const lines = text.split('\n');
  let first = 0;
  while (first < lines.length && /^(?:#.*)?$/.test(lines[first] as string)) first++;
  return `# line ${first + 1} "${name}"\n${lines.slice(first).join('\n')}`;
}

/** The name a `.pl` file is given in Perl's messages: its path in the repository (lib/…), wherever it is read from. */
export function perlName(path: string): string {
  const at = Math.max(path.lastIndexOf('/lib/'), path.lastIndexOf('/dist/'));
  return `lib/${path.slice(path.indexOf('/', at + 1) + 1)}`;
}

/** The `.pl` file at `url` as it is run (perlSource). */
export function perlFile(url: URL): string {
  const path = fileURLToPath(url);
  return perlSource(perlName(path), readFileSync(path, 'utf8'));
}
