// ssh's ProxyCommand inside a coding tool's sandbox: `node ssh-proxy.cjs VARIABLE HOST PORT` tunnels stdin/stdout to
// HOST:PORT through the proxy named by the environment variable VARIABLE (its URL may hold the proxy's password,
// which therefore never appears in an argv). Bundled on its own (dist/ssh-proxy.cjs): it starts once per connection.
import { appendOwnFile } from '../state/own-file.js';
import { openTunnel } from './proxy-tunnel.js';

const [variable = '', host = '', port = ''] = process.argv.slice(2);
const proxy = process.env[variable];
if (!proxy || !host || !(Number(port) > 0)) {
  process.stderr.write(`sparehand-proxy: usage: ssh-proxy.cjs VARIABLE HOST PORT (with VARIABLE holding the proxy's URL)\n`);
  process.exit(2);
}
openTunnel(proxy, host, Number(port)).then(
  ({ socket, rest }) => {
    if (rest.length > 0) process.stdout.write(rest);
    process.stdin.pipe(socket);
    socket.pipe(process.stdout);
    socket.on('close', () => process.exit(0));
    socket.on('error', () => process.exit(1));
    process.stdin.on('end', () => socket.end());
  },
  (e: Error) => {
    // ssh shows its ProxyCommand's stderr (ssh-errors.ts reads this line), but not a ControlPersist master's: that
    // one's log file is named in SPAREHAND_PROXY_LOG.
    const line = `sparehand-proxy: ${e.message}\n`;
    process.stderr.write(line);
    if (process.env.SPAREHAND_PROXY_LOG) appendOwnFile({}, process.env.SPAREHAND_PROXY_LOG, line);
    process.exit(1);
  },
);
