// What follows when a worker's platform is not this machine's, in the words `worker check` and `doctor` print.
import { type Platform, differenceLabels, samePlatform } from './platform.js';

/** One sentence when `there` differs from `here`, else undefined. */
export function differenceNote(name: string, here: Platform, there: Platform): string | undefined {
  if (samePlatform(here, there)) return undefined;
  const l = differenceLabels(here, there);
  return (
    `${name} is ${l.there}, this machine ${l.here}: the executables, libraries and object files its commands build stay there ` +
    '(`sparehand worker fetch` brings them), a chain that runs what it just built (`make && ./app`) runs whole there or whole here, ' +
    'and everything else (test results, JavaScript, reports, sources) comes back as usual'
  );
}
