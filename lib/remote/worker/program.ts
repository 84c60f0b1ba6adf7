// The program a run starts on the worker, and how it gets there: the ssh command line is a short, fixed Perl
// bootstrap (no value of the run in any argument: nothing a `ps` on either machine shows, no length limit);
// the program itself and the job follow on the session's input, in frames (lib/remote/frames.ts).
import { quote } from 'shell-quote';
import { REPORT_PL } from '../../sync/worker-report.pl.js';
import { CLAIM_PL } from './claim.pl.js';
import { DEPS_PL } from './deps.pl.js';
import { ENV_PL } from './env.pl.js';
import { FIND_PL } from './find.pl.js';
import { GROUP_PL } from './group.pl.js';
import { IO_PL } from './io.pl.js';
import { MAIN_PL } from './main.pl.js';
import { PLATFORM_PL } from './platform.pl.js';

/** The whole worker program (Perl), in the order its parts need each other. */
export const PROGRAM = [IO_PL, FIND_PL, CLAIM_PL, ENV_PL, GROUP_PL, DEPS_PL, REPORT_PL, PLATFORM_PL, MAIN_PL].join('\n');

/**
 * Reads `LENGTH\n` and the program from its input (or from FILE, which it deletes: the terminal session's job,
 * written by the session that holds its slot) and runs it. One line, without quotes, backslashes or `!`, so
 * that any login shell (sh, bash, zsh, fish, csh) passes it to perl as it is.
 */
export const BOOT =
  'our($in,$program)=(*STDIN,"");if(@ARGV){open(my$h,"<",$ARGV[0])or exit 125;unlink$ARGV[0];$in=$h}binmode$in;' +
  'my$l="";while(sysread($in,my$c,1)){last if$c eq chr 10;$l.=$c}exit 125 unless$l=~/^[0-9]+$/;' +
  'while(length$program<$l){sysread($in,$program,$l-length$program,length$program)or exit 125}' +
  'eval$program;print STDERR $@;exit 125';

/** The remote command line: the bootstrap, and for a terminal session the job file it reads instead of its input. */
export function bootCommand(jobFile?: string): string {
  return quote(['perl', '-e', BOOT, ...(jobFile === undefined ? [] : [jobFile])]);
}

/** What the session's input starts with: the program, for the bootstrap. */
export function programPreamble(): Buffer {
  const body = Buffer.from(PROGRAM);
  return Buffer.concat([Buffer.from(`${body.length}\n`), body]);
}
