// The stdio transport of a server started by an agent: the SDK's StdioServerTransport (one JSON-RPC
// message a line on stdin, one a line on stdout, the same errors and the same closing), except for
// the message every agent call is, a plain tools/call request. The SDK checks each line against
// zod schemas four times before a handler runs (the union of every message kind as it reads the
// line, then whether it is a result, an error, a request), which in a server that has answered only
// a few hundred calls (ten agents draining one queue, each through its own server) cost about as
// much CPU as our own handling of the call. A line that is a tools/call request and nothing more
// (see plainToolCall: exactly what those schemas accept and pass on unchanged) goes to the
// server's request path at once; every other line takes the SDK's way, checks and all.

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { deserializeMessage, serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

const TOP_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * Whether `value` (a parsed line) is a tools/call request that the SDK's schemas accept as it is:
 * JSONRPCMessageSchema parses it as a request and returns the same fields (no other top-level key,
 * which it would drop), it is neither a result nor an error, and its params carry no `_meta` or
 * `task` (which the SDK checks and acts on). Anything else is left to the SDK.
 */
export function plainToolCall(value: unknown): value is JSONRPCRequest {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0' || m.method !== 'tools/call') return false;
  const id = m.id;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))) return false;
  const params = m.params;
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return false;
  if (Object.getPrototypeOf(params) !== Object.prototype || '_meta' in params || 'task' in params || Object.hasOwn(params, '__proto__')) return false;
  for (const key in m) if (!TOP_KEYS.has(key)) return false;
  return true;
}

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Where plain tools/call requests go instead of onmessage, once set (serveToolCalls). */
  toolCall?: (message: JSONRPCRequest) => void;
  private buffer: Buffer | undefined;
  private started = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {}

  private readonly ondata = (chunk: Buffer): void => {
    try {
      const size = (this.buffer?.length ?? 0) + chunk.length;
      if (size > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
        this.buffer = undefined;
        throw new Error(`ReadBuffer exceeded maximum size of ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes`);
      }
      this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
      this.processBuffer();
    } catch (error) {
      this.onerror?.(error as Error);
      this.close().catch(() => undefined);
    }
  };

  private readonly onstreamerror = (error: Error): void => {
    this.onerror?.(error);
  };

  start(): Promise<void> {
    if (this.started) {
      throw new Error('StdioServerTransport already started! If using Server class, note that connect() calls start() automatically.');
    }
    this.started = true;
    this.stdin.on('data', this.ondata);
    this.stdin.on('error', this.onstreamerror);
    return Promise.resolve();
  }

  private processBuffer(): void {
    for (;;) {
      try {
        const buffer = this.buffer;
        if (!buffer) break;
        const index = buffer.indexOf('\n');
        if (index === -1) break;
        const line = buffer.toString('utf8', 0, index).replace(/\r$/, '');
        this.buffer = buffer.subarray(index + 1);
        this.receive(line);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    }
  }

  private receive(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      // The SDK's own error for a line that is not JSON.
      this.onmessage?.(deserializeMessage(line));
      return;
    }
    if (this.toolCall && plainToolCall(parsed)) this.toolCall(parsed);
    else this.onmessage?.(JSONRPCMessageSchema.parse(parsed));
  }

  close(): Promise<void> {
    this.stdin.off('data', this.ondata);
    this.stdin.off('error', this.onstreamerror);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.buffer = undefined;
    this.onclose?.();
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(message))) resolve();
      else this.stdout.once('drain', resolve);
    });
  }
}

/**
 * Sends `transport`'s plain tools/call requests straight to `server`'s request handling, the path the
 * SDK's message dispatch takes for them once its checks pass. Left as it is (every message through
 * the SDK's checks) when this SDK has no such method.
 */
export function serveToolCalls(server: Server, transport: StdioTransport): void {
  const onrequest = (server as unknown as { _onrequest?: (request: JSONRPCRequest, extra?: unknown) => void })._onrequest;
  if (typeof onrequest !== 'function' || !transport.onmessage) return;
  transport.toolCall = (message) => onrequest.call(server, message, undefined);
}
