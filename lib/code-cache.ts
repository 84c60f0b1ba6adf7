// Loads a CommonJS bundle with V8's code cache kept in the user's cache folder. The CLI and the hook's full path are
// compiled anew by every hook process otherwise; with the cache it starts in about half the time
// (docs/performance.md). Node 20 has no module compile cache of its own (that came in 22.1).
import { isAscii } from 'node:buffer';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { ownFolder, readOwnBytes, replaceOwnFile } from './state/own-file.js';

type Wrapped = (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dir: string) => void;

export function requireWithCodeCache(file: string, cacheDir: string): unknown {
  // Read whole (a read with the encoding goes 8 KiB at a time) and, as esbuild writes ASCII, taken as Latin-1: no
  // UTF-8 decoding. ~0.2 ms of the hook's heavy path on a 180 KB bundle.
  const bytes = readFileSync(file);
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const st = statSync(file);
  const stem = `${basename(file)}-${process.version}-${process.arch}-`;
  const cachePath = join(cacheDir, `${stem}${st.size}-${Math.trunc(st.mtimeMs)}.v8`);
  // None on the first run of this build; never a link, a FIFO or another user's (lib/state/own-file.ts).
  const cachedData = readOwnBytes({}, cachePath);
  // The same wrapper Node puts around a CommonJS module; V8 checks the cache against this exact source.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const module = { exports: {} as unknown };
  (script.runInThisContext() as Wrapped)(module.exports, createRequire(file), module, file, dirname(file));
  if (!cachedData || script.cachedDataRejected) {
    // Written at exit, so that the functions this run compiled are in it too. Never fails the hook.
    process.once('exit', () => {
      try {
        if (!ownFolder({}, cacheDir, { make: true })) return;
        for (const old of readdirSync(cacheDir)) if (old.startsWith(stem)) rmSync(join(cacheDir, old), { force: true });
        replaceOwnFile(cachePath, script.createCachedData());
      } catch {
        // no cache this time
      }
    });
  }
  return module.exports;
}
