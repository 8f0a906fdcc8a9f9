// A JSON-RPC connection over a socket (client, host and standby alike) whose writes never reject
// and whose pending requests never outlive the socket. A write to a peer that died (EPIPE)
// destroys the socket instead: vscode-jsonrpc rethrows a failed request write from inside a
// promise executor, which would be an unhandled rejection. When the socket closes the connection
// is disposed: vscode-jsonrpc rejects pending requests on dispose, not on close, so a peer killed
// before it answered (a host killed during a client's hello) would leave the request, and the
// call waiting on it, pending forever. The caller sees the rejection and tries the next host.
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
  const connection = createMessageConnection(new SocketMessageReader(socket), new SafeSocketWriter(socket));
  socket.once('close', () => connection.dispose());
  return connection;
}
