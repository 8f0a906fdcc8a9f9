// The floor of a durable write through a second process: listens on a Unix socket, and for each
// line a client sends appends it to a file and fdatasyncs it, then answers with a line. No
// parsing beyond finding the line's end, no database, no protocol library. bench/host.mjs starts
// it (with bench/floorServer.mjs in front) beside the ledger host, so that log_progress can be
// read against the least any design with a separate durable process costs on the same machine.
// The bench also talks to it directly, with no MCP in between: a line that is only `ping` is
// answered at once, without writing (the round trip between two processes alone).
// Usage: node bench/floorHost.mjs SOCKET FILE (prints "ready" once listening).

import * as fs from 'node:fs';
import * as net from 'node:net';

const [socketPath, file] = process.argv.slice(2);
const fd = fs.openSync(file, 'a', 0o600);
const server = net.createServer((socket) => {
  let pending = '';
  socket.on('data', (data) => {
    pending += data.toString('utf8');
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const line = pending.slice(0, end + 1);
      pending = pending.slice(end + 1);
      if (line !== 'ping\n') {
        fs.writeSync(fd, line);
        fs.fdatasyncSync(fd);
      }
      socket.write('ok\n');
    }
  });
  socket.on('error', () => socket.destroy());
});
server.listen(socketPath, () => process.stdout.write('ready\n'));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
