// The program a run starts on the worker, and how it gets there: the ssh command line is a short, fixed Perl
// bootstrap (no value of the run in any argument: nothing a `ps` on either machine shows, no length limit);
// the program itself and the job follow on the session's input, in frames (lib/remote/frames.ts).
import { quote } from 'shell-quote';
import { CLAIM_PL, DEPS_PL, ENV_PL, FIND_PL, GROUP_PL, IO_PL, MAIN_PL, PLATFORM_PL, REPORT_PL, SERVICES_PL, SETTINGS_PL, WATCH_PL } from './parts.js';

/** The whole worker program (Perl), in the order its parts need each other (parts.ts). */
export const PROGRAM = [SETTINGS_PL, IO_PL, FIND_PL, CLAIM_PL, ENV_PL, GROUP_PL, SERVICES_PL, DEPS_PL, REPORT_PL, WATCH_PL, PLATFORM_PL, MAIN_PL].join('\n');

/** prctl's syscall number per architecture (Config's archname up to its first `-`); no module has it. */
const PRCTL: Record<string, number> = {
  x86_64: 157,
  aarch64: 167,
  riscv64: 167,
  loongarch64: 167,
  i386: 172,
  i486: 172,
  i586: 172,
  i686: 172,
  arm: 172,
  armv5tel: 172,
  armv6l: 172,
  armv7l: 172,
  s390x: 172,
  ppc: 171,
  ppc64: 171,
  ppc64le: 171,
};

/**
 * Makes itself non-dumpable on Linux (prctl(PR_SET_DUMPABLE, 0)) before it reads anything: from then on no other
 * process of the user can open its input or output through /proc, read its memory or trace it. Then it reads
 * the session's key (`KEY\n`, from its input only), `LENGTH\n` and the program from its input (or from FILE,
 * which it deletes: the terminal session's job, written by the session that holds its slot) and runs it. One
 * line, without quotes, backslashes or `!`, so that any login shell (sh, bash, zsh, fish, csh) passes it to
 * perl as it is.
 */
export const BOOT =
  `if($^O=~/linux/){require Config;my%n=(${Object.entries(PRCTL)
    .map(([a, n]) => `${a}=>${n}`)
    .join(',')});my$r=($Config::Config{archname}=~/^([^-]+)/)[0];syscall($n{$r},4,0,0,0,0)if$n{$r}}` +
  'our($in,$program,$session_key)=(*STDIN,"","");if(@ARGV){open(my$h,"<",$ARGV[0])or exit 125;unlink$ARGV[0];$in=$h}binmode$in;' +
  'sub boot_line{my$l="";while(sysread($in,my$c,1)){last if$c eq chr 10;$l.=$c}$l}$session_key=boot_line()unless@ARGV;' +
  'my$l=boot_line();exit 125 unless$l=~/^[0-9]+$/;' +
  'while(length$program<$l){sysread($in,$program,$l-length$program,length$program)or exit 125}' +
  'eval$program;print STDERR $@;exit 125';

/**
 * The remote command line: the bootstrap, and for a terminal session the job file it reads instead of its input.
 * `exec`: the login shell becomes perl, so that no shell stays behind holding the session's input and output.
 */
export function bootCommand(jobFile?: string): string {
  return `exec ${quote(['perl', '-e', BOOT, ...(jobFile === undefined ? [] : [jobFile])])}`;
}

/** What the session's input starts with: the session's key (lib/remote/frames.ts; '': frames unsealed) and the program. */
export function programPreamble(key = ''): Buffer {
  const body = Buffer.from(PROGRAM);
  return Buffer.concat([Buffer.from(`${key}\n${body.length}\n`), body]);
}
