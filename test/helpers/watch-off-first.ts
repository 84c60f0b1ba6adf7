// Imported first by a test file: every `sparehand` the file runs (through worker-env.ts workerHome) has
// SPAREHAND_WATCH=off, so a warm run looks at every file instead of asking the watcher (lib/watch/).
process.env.SPAREHAND_WATCH = 'off';
