// How sparehand names itself in hook commands and rewrites: this node binary and this installation's script.
import { realpathSync } from 'node:fs';
import { quote } from 'shell-quote';
import { packagePath } from './package-files.js';

export interface Self {
  node: string;
  script: string;
}

/** Absolute node + absolute bin/sparehand.js. */
export function self(): Self {
  const script = packagePath('bin/sparehand.js');
  let real = script;
  try {
    // The system's realpath(3): one call, where realpathSync's own walk stats each folder of the path (~0.3 ms of
    // every rewrite in the hook).
    real = realpathSync.native(script);
  } catch {
    // keep the unresolved path
  }
  return { node: process.execPath, script: real };
}

/** How a rewrite (or a note) names sparehand: the bare name on the tool's PATH, or node + script by absolute path. */
export function sparehandInvocation(name: 'absolute' | 'bare', c: Self): string {
  return name === 'bare' ? 'sparehand' : quote([c.node, c.script]);
}
