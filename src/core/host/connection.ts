// A JSON-RPC connection over a socket (client, host and standby alike) whose writes never reject
// and whose pending requests never outlive the socket. A write to a peer that died (EPIPE)
// destroys the socket instead: vscode-jsonrpc rethrows a failed request write from inside a
// promise executor, which would be an unhandled rejection. When the socket closes the connection
// is disposed: vscode-jsonrpc rejects pending requests on dispose, not on close, so a peer killed
// before it answered (a host killed during a client's hello) would leave the request, and the
// call waiting on it, pending forever. The caller sees the rejection and tries the next host.
// Each message leaves in one socket write: vscode-jsonrpc's writer writes the header, waits for
// it to be flushed, then writes the body, and the peer woke up for each half (bench/host.mjs).
// Each message is read in the turn its last byte arrived (FrameReader): vscode-jsonrpc's reader
// hands every frame to an async decoder behind a semaphore that waits a turn of the event loop
// (setImmediate) per message, before the connection's own queue waits another.

import type * as net from 'node:net';
import { AbstractMessageReader, createMessageConnection, SocketMessageWriter, type DataCallback, type Disposable, type Message, type MessageConnection } from 'vscode-jsonrpc/node';

/** The most a frame's header may weigh before its blank line: a peer that sends more is not speaking this protocol. */
const MAX_HEADER_BYTES = 1024;
const HEADER_END = Buffer.from('\r\n\r\n', 'ascii');

/**
 * The frames vscode-jsonrpc's writers send (`Content-Length: N`, other header lines ignored, a
 * blank line, N bytes of UTF-8 JSON), decoded and delivered in order, synchronously, as their
 * last byte arrives. A frame that is not JSON is reported (onError) and skipped; a header without
 * a length, or one too long, hangs up: nothing after it can be framed.
 */
export class FrameReader extends AbstractMessageReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** The body length of the frame being read, once its header was; -1 before. */
  private need = -1;

  constructor(private readonly socket: net.Socket) {
    super();
    socket.on('error', (err) => this.fireError(err));
    socket.on('close', () => this.fireClose());
  }

  listen(callback: DataCallback): Disposable {
    const onData = (data: Buffer): void => this.onData(data, callback);
    this.socket.on('data', onData);
    return { dispose: () => this.socket.off('data', onData) };
  }

  private onData(data: Buffer, callback: DataCallback): void {
    this.chunks.push(data);
    this.buffered += data.length;
    for (;;) {
      if (this.need < 0) {
        const buffer = this.joined();
        const end = buffer.indexOf(HEADER_END);
        if (end < 0 || end > MAX_HEADER_BYTES) {
          if (end > MAX_HEADER_BYTES || (end < 0 && buffer.length > MAX_HEADER_BYTES)) this.refuse('a frame header longer than 1 KB');
          return;
        }
        const length = /^content-length:[ \t]*(\d+)[ \t]*$/im.exec(buffer.toString('ascii', 0, end))?.[1];
        if (length === undefined) return this.refuse('a frame header without Content-Length');
        this.need = Number(length);
        this.take(end + HEADER_END.length);
      }
      if (this.buffered < this.need) return;
      const body = this.take(this.need);
      this.need = -1;
      let message: Message;
      try {
        message = JSON.parse(body.toString('utf8')) as Message;
      } catch (err) {
        this.fireError(err);
        continue;
      }
      callback(message);
    }
  }

  /** The buffered bytes as one buffer (kept as such). */
  private joined(): Buffer {
    if (this.chunks.length !== 1) this.chunks = [Buffer.concat(this.chunks, this.buffered)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  /** Removes and returns the first `n` buffered bytes. */
  private take(n: number): Buffer {
    const buffer = this.joined();
    const out = buffer.subarray(0, n);
    const rest = buffer.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return out;
  }

  private refuse(why: string): void {
    this.chunks = [];
    this.buffered = 0;
    this.fireError(new Error(`Hung up on a peer that sent ${why}`));
    this.socket.destroy();
  }
}

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
  const connection = createMessageConnection(new FrameReader(socket), new SafeSocketWriter(socket));
  socket.once('close', () => connection.dispose());
  return connection;
}
