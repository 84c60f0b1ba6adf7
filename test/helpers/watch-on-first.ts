// Imported first by a test file: every `sparehand` it runs (through worker-env.ts workerHome) starts and asks a
// watcher for a project of any size (SPAREHAND_WATCH=on), unless a file that imports it turned it off first.
process.env.SPAREHAND_WATCH ??= 'on';
