// A JSON-RPC connection over a socket (client and host alike) whose writes never reject: a write
// to a peer that died (EPIPE) destroys the socket instead, the connection closes, and pending
// calls are rejected as lost (the client sends them to the next host). vscode-jsonrpc rethrows a
// failed request write from inside a promise executor, which would be an unhandled rejection.

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
    try {
      await super.write(msg);
    } catch {
      this.target.destroy();
    }
  }
}

export function socketConnection(socket: net.Socket): MessageConnection {
  socket.on('error', () => socket.destroy());
  return createMessageConnection(new SocketMessageReader(socket), new SafeSocketWriter(socket));
}
