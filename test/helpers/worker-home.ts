// A worker owner's HOME as a Debian or Ubuntu install makes it, for a test sshd (`startSshd({ home })`): ~/.bashrc
// returns at once in a non-interactive shell, ~/.profile sources it and puts more on PATH (as rustup, pyenv,
// corepack and nvm's installers do), so tools there are only on the login PATH.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './context.js';

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
