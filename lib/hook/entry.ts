// Entry of the bundled hook (dist/hook.bundle.cjs): no commander, no CLI, just the hot path. CommonJS,
// because an ES module entry alone costs a quarter of a bare Node start (docs/performance.md).
import { processContext } from '../context.js';
import { hookMain } from './main.js';

const args = process.argv.slice(2);
const i = args.indexOf('--for');
const agent = i >= 0 ? (args[i + 1] ?? '') : (args.find((a) => a.startsWith('--for='))?.slice(6) ?? '');
hookMain(processContext(), agent).then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    process.exitCode = 0;
  },
);
