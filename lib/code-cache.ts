// Loads a CommonJS bundle with V8's code cache kept in the user's cache folder. The CLI and the hook's full path are
// compiled anew by every hook process otherwise; with the cache it starts in about half the time
// (docs/performance.md). Node 20 has no module compile cache of its own (that came in 22.1).
import { isAscii } from 'node:buffer';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

type Wrapped = (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dir: string) => void;

export function requireWithCodeCache(file: string, cacheDir: string): unknown {
  // Read whole (a read with the encoding goes 8 KiB at a time) and, as esbuild writes ASCII, taken as Latin-1: no
  // UTF-8 decoding. ~0.2 ms of the hook's heavy path on a 180 KB bundle.
  const bytes = readFileSync(file);
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const st = statSync(file);
  const stem = `${basename(file)}-${process.version}-${process.arch}-`;
  const cachePath = join(cacheDir, `${stem}${st.size}-${Math.trunc(st.mtimeMs)}.v8`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cachePath);
  } catch {
    // first run of this build: no cache yet
  }
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
        mkdirSync(cacheDir, { recursive: true });
        for (const old of readdirSync(cacheDir)) if (old.startsWith(stem)) rmSync(join(cacheDir, old), { force: true });
        const tmp = `${cachePath}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cachePath);
      } catch {
        // no cache this time
      }
    });
  }
  return module.exports;
}
