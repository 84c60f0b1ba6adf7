// skipOptions reads a wrapper's options as GNU getopt does, so the command after them is found.
import { describe, expect, it } from 'vitest';
import { type OptionSpec, skipOptions } from '../../lib/classify/options.js';

const TIMEOUT: OptionSpec = {
  flags: 'fpv',
  withValue: 'ks',
  long: { foreground: 'flag', 'preserve-status': 'flag', verbose: 'flag', 'kill-after': 'value', signal: 'value', version: 'flag', 'block-signal': 'optional' },
  notFollowed: ['--version'],
};
const commandAt = (line: string): number => skipOptions(line.split(' '), 1, TIMEOUT);

describe('skipOptions', () => {
  it.each([
    ['timeout 5 x', 1],
    ['timeout -v 5 x', 2],
    ['timeout -vk 5 10 x', 3],
    ['timeout -vk5 10 x', 2],
    ['timeout -k 5 -s KILL 10 x', 5],
    ['timeout --kill-after=5 10 x', 2],
    ['timeout --kill-after 5 10 x', 3],
    ['timeout --k 5 10 x', 3],
    ['timeout --pres --fore 10 x', 3],
    ['timeout --block-signal 10 x', 2],
    ['timeout --block-signal=INT 10 x', 2],
    ['timeout -- 10 x', 2],
    ['timeout - 10', 1],
  ])('%s: the command part starts at word %i', (line, index) => {
    expect(commandAt(line)).toBe(index);
  });

  it.each([
    ['timeout -x 5 cmd', 'an unknown short option'],
    ['timeout --nope 5 cmd', 'an unknown long option'],
    ['timeout --v 5 cmd', 'an ambiguous abbreviation (verbose, version)'],
    ['timeout --verbose=1 5 cmd', 'a value given to a flag'],
    ['timeout --version', 'an option that runs no command'],
  ])('%s: -1 (%s)', (line) => {
    expect(commandAt(line)).toBe(-1);
  });
});
