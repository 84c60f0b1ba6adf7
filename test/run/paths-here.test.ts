import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { terminalsWork } from '../helpers/sshd.js';
import { bashQuote } from '../../lib/classify/index.js';
import { BIN, sparehand } from '../helpers/cli.js';
import { gitProject } from '../helpers/project.js';
import { copyPath, sharedWorker } from '../helpers/worker-env.js';

const w = sharedWorker();

describe("paths in the command's output are this machine's", () => {
  it("the worker's copy of the project, on stdout and stderr, bare and as a file:// URL, is shown as the root here", async () => {
    const proj = gitProject({ 'src/a.txt': 'a\n' });
    const cmd = [
      'echo "$PWD"',
      'echo "at file://$PWD/x.js:3:7"',
      'printf "\\033[31m%s\\033[0m\\n" "$PWD/src/a.txt"',
      'echo "${PWD}1 ${PWD}.bak"',
      'echo "err: $PWD/src" >&2',
      'cd src && pwd',
    ].join('; ');
    const r = await sparehand(['run', '--quiet', '--', cmd], { env: w.wh.env, cwd: proj });
    expect(r.exitCode, r.stderr).toBe(0);
    const there = copyPath(w.wh, w.sshd.remoteDir, proj);
    expect(r.stdout).toBe(`${proj}\nat file://${proj}/x.js:3:7\n\x1b[31m${proj}/src/a.txt\x1b[0m\n${there}1 ${there}.bak\n${proj}/src\n`);
    expect(r.stderr).toBe(`err: ${proj}/src\n`);
  });

  it('what the command prints cannot name another root: a forged root frame in its output is only output', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const forged = `root 4\n/tmp\nerr 2\nhi`;
    const r = await sparehand(['run', '--quiet', '--', `printf '%s\\n' ${bashQuote(forged)} "$PWD" /tmp/x`], { env: w.wh.env, cwd: proj });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${forged}\n${proj}\n/tmp/x\n`);
  });

  it.runIf(terminalsWork())('in a terminal too (ssh -tt): the root here, and a line that ends in part of a root is not kept back', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const there = copyPath(w.wh, w.sshd.remoteDir, proj);
    // script(1) gives sparehand a terminal for stdin and stdout, as a person's shell has.
    const inner = `${bashQuote(process.execPath)} ${bashQuote(BIN)} run --quiet -- ${bashQuote('echo "[$PWD]"; printf "%s" "${PWD%/*}"; sleep 1; echo " ${PWD}1"')}`;
    const r = await execa('script', ['-qefc', inner, '/dev/null'], {
      cwd: proj,
      env: { ...w.wh.env, TERM: 'dumb' },
      extendEnv: false,
      reject: false,
      input: '',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = (r.stdout as string).replaceAll('\r', '');
    expect(out).toContain(`[${proj}]\n`);
    expect(out).toContain(`${there.slice(0, there.lastIndexOf('/'))} ${there}1`);
  });

  it('passes binary output through unchanged, and a root split across two writes is still found', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const cmd = 'head -c 300000 /dev/urandom > blob; cat blob; echo; printf "%s" "${PWD%/*}"; sleep 0.02; printf "/%s\\n" "${PWD##*/}"';
    const r = await execa(process.execPath, [BIN, 'run', '--quiet', '--', cmd], {
      env: w.wh.env,
      extendEnv: false,
      cwd: proj,
      encoding: 'buffer',
      reject: false,
      stripFinalNewline: false,
    });
    expect(r.exitCode, r.stderr.toString()).toBe(0);
    const blob = readFileSync(join(proj, 'blob'));
    expect(Buffer.from(r.stdout).subarray(0, blob.length).equals(blob)).toBe(true);
    expect(Buffer.from(r.stdout).subarray(blob.length).toString()).toBe(`\n${proj}\n`);
  });
});
