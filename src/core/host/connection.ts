// A JSON-RPC connection over a socket (client and host alike) whose writes never reject: a write
// to a peer that died (EPIPE) destroys the socket instead, the connection closes, and pending
// calls are rejected as lost (the client sends them to the next host). vscode-jsonrpc rethrows a
// failed request write from inside a promise executor, which would be an unhandled rejection.
// Each message leaves in one socket write: vscode-jsonrpc's writer writes the header, waits for
// it to be flushed, then writes the body, and the peer woke up for each half (bench/host.mjs).

import type * as net from 'node:net';
import { createMessageConnection, SocketMessageReader, SocketMessageWriter, type Message, type MessageConnection } from 'vscode-jsonrpc/node';

class SafeSocketWriter extends SocketMessageWriter {
  private readonly target: net.Socket;

  constructor(socket: net.Socket) {
    super(socket);
    this.target = socket;
  }

  override async write(msg: Message): Promise<void> {
    if (this.target.destroyed || !this.target.writable) {
      this.target.destroy();
      return;
    }
    let json: string;
    try {
      json = JSON.stringify(msg);
    } catch {
      // Not JSON (never a ledger value): vscode-jsonrpc's own writer reports it.
      return super.write(msg).catch(() => {
        this.target.destroy();
      });
    }
    // The header and the body vscode-jsonrpc's writer sends, as one frame.
    const frame = `Content-Length: ${Buffer.byteLength(json, 'utf8')}\r\n\r\n${json}`;
    await new Promise<void>((resolve) => {
      this.target.write(frame, 'utf8', (err) => {
        if (err) this.target.destroy();
        resolve();
      });
    });
  }
}

export function socketConnection(socket: net.Socket): MessageConnection {
  socket.on('error', () => socket.destroy());
  return createMessageConnection(new SocketMessageReader(socket), new SafeSocketWriter(socket));
}
