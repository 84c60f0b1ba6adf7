// Entry of the bundled hook (dist/hook.bundle.js): no commander, no CLI, just the hot path.
import { processContext } from '../context.js';
import { hookMain } from './main.js';

const args = process.argv.slice(2);
const i = args.indexOf('--for');
const agent = i >= 0 ? (args[i + 1] ?? '') : (args.find((a) => a.startsWith('--for='))?.slice(6) ?? '');
process.exitCode = await hookMain(processContext(), agent);
