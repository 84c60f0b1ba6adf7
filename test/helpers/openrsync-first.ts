// Imported first by a test file: this process's PATH starts with openrsync, so every `sparehand` the file runs
// uses it as this machine's rsync (as on a Mac), while the test workers keep GNU rsync.
import { openrsyncBin } from './rsyncs.js';

process.env.PATH = `${openrsyncBin()}:${process.env.PATH}`;
