// sparehand's own version, read from package.json once (for `--version` and `agent status`).
import { readFileSync } from 'node:fs';
import { packageUrl } from './package-files.js';

export const VERSION: string = (JSON.parse(readFileSync(packageUrl('package.json'), 'utf8')) as { version: string }).version;
