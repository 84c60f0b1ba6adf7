// A worker owner's HOME as a Debian or Ubuntu install makes it, for a test sshd (`startSshd({ home })`): ~/.bashrc
// returns at once in a non-interactive shell, ~/.profile sources it and puts more on PATH (as rustup, pyenv,
// corepack and nvm's installers do), so tools there are only on the login PATH.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { quote } from 'shell-quote';
import { tempDir } from './context.js';
import { asWorker, isRoot, workerUser } from './sshd.js';

export const DEBIAN_BASHRC = `# ~/.bashrc: executed by bash(1) for non-login shells.
# If not running interactively, don't do anything
case $- in
    *i*) ;;
      *) return;;
esac
export PATH="$HOME/interactive-only/bin:$PATH"
`;

/** A worker HOME whose ~/.profile adds `loginPath` folders (relative to HOME, or absolute) to PATH. */
export function workerOwnerHome(loginPath: readonly string[] = ['tools/bin']): string {
  const home = tempDir('sparehand-worker-home-');
  writeFileSync(join(home, '.bashrc'), DEBIAN_BASHRC);
  const dirs = loginPath.map((d) => (d.startsWith('/') ? d : `$HOME/${d}`)).join(':');
  writeFileSync(
    join(home, '.profile'),
    `# ~/.profile: executed by the command interpreter for login shells.\nif [ -n "$BASH_VERSION" ] && [ -f "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi\nexport PATH="${dirs}:$PATH"\nexport GOFLAGS="-mod=mod -tags=a,b"\n`,
  );
  return home;
}

/**
 * The ~/.profile line that puts a cargo on the test worker's login PATH: this machine's own when the worker is this
 * process's user; else one the worker user can run (Debian's `cargo` package, which README's packages bring), or why
 * there is none (the suites that need it skip their cargo tests with that line).
 */
export function workerCargo(): { profile: string } | { why: string } {
  const here = (() => {
    try {
      return execFileSync('sh', ['-c', 'command -v cargo'], { encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  })();
  if (!isRoot() && here) {
    const rust = `RUSTUP_HOME=${quote([process.env.RUSTUP_HOME ?? join(homedir(), '.rustup')])} CARGO_HOME=${quote([process.env.CARGO_HOME ?? join(homedir(), '.cargo')])}`;
    return { profile: `export PATH=${quote([dirname(here)])}:"$PATH" ${rust}` };
  }
  for (const cargo of [here, '/usr/bin/cargo'].filter(Boolean)) {
    try {
      asWorker([cargo, '--version']);
      return { profile: `export PATH=${quote([dirname(cargo)])}:"$PATH"` };
    } catch {
      /* not one the worker user can run */
    }
  }
  return { why: `no cargo that the test worker's user (${workerUser()}) can run: apt-get install cargo` };
}
