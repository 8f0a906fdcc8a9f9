// A client of bench/floorHost.mjs: sends lines over its Unix socket and waits for each one's answer
// line, in order. bench/floorServer.mjs (the floor's MCP side) and bench/host.mjs (the bare hop,
// with no MCP in between) both talk to the floor host through it.

import * as net from 'node:net';

/** Connects to the floor host listening at `socketPath`. */
export async function connectFloor(socketPath) {
  const socket = net.connect(socketPath);
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.removeAllListeners('error');
  const waiting = [];
  let answers = '';
  const gone = () => new Error('bench/floorHost.mjs closed its socket');
  // A socket's error is followed by its close, where every line still waiting fails.
  socket.on('error', () => undefined);
  socket.on('close', () => {
    for (const line of waiting.splice(0)) line.reject(gone());
  });
  socket.on('data', (data) => {
    answers += data.toString('utf8');
    for (let end = answers.indexOf('\n'); end >= 0; end = answers.indexOf('\n')) {
      answers = answers.slice(end + 1);
      waiting.shift()?.resolve();
    }
  });
  return {
    socket,
    /** Sends `line` (without its newline); resolves once the floor host has answered it. */
    send: (line) =>
      new Promise((resolve, reject) => {
        if (socket.destroyed) return reject(gone());
        waiting.push({ resolve, reject });
        socket.write(`${line}\n`);
      }),
  };
}
