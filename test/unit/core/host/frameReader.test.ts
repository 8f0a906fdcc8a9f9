import * as assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type * as net from 'node:net';
import type { Message } from 'vscode-jsonrpc/node';
import { FrameReader } from '../../../../src/core/host/connection';

/** A socket's events without a socket: what FrameReader listens to, and whether it hung up. */
class FakeSocket extends EventEmitter {
  destroyed = false;
  destroy(): void {
    this.destroyed = true;
  }
}

function frame(message: unknown): Buffer {
  const json = JSON.stringify(message);
  return Buffer.from(`Content-Length: ${Buffer.byteLength(json, 'utf8')}\r\n\r\n${json}`, 'utf8');
}

function reader(): { socket: FakeSocket; got: Message[]; errors: string[] } {
  const socket = new FakeSocket();
  const r = new FrameReader(socket as unknown as net.Socket);
  const got: Message[] = [];
  const errors: string[] = [];
  r.onError((err) => errors.push(err.message));
  r.listen((m) => got.push(m));
  return { socket, got, errors };
}

describe('host connection frame reader', () => {
  it('delivers each message in the turn its last byte arrives, in order, however the bytes are cut', () => {
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'a', params: { text: 'naïve café ✓ 😀' } },
      { jsonrpc: '2.0', id: 2, result: { v: 'x'.repeat(50_000) } },
      { jsonrpc: '2.0', method: 'changed', params: {} },
    ];
    const frames = messages.map(frame);
    const bytes = Buffer.concat(frames);
    const ends = frames.map((_, i) => frames.slice(0, i + 1).reduce((n, f) => n + f.length, 0));
    // All at once, then byte by byte (a multi-byte character split across chunks), then in odd slices.
    for (const size of [bytes.length, 1, 7, 4096]) {
      const { socket, got, errors } = reader();
      for (let at = 0; at < bytes.length; at += size) {
        const end = Math.min(bytes.length, at + size);
        socket.emit('data', bytes.subarray(at, end));
        // Synchronously: every frame that ended within the bytes so far is already delivered.
        assert.equal(got.length, ends.filter((e) => e <= end).length, `chunk size ${size}, at byte ${end}`);
      }
      assert.deepEqual(got, messages, `chunk size ${size}`);
      assert.deepEqual(errors, []);
    }
  });

  it('reads the length whatever the header case and other header lines, and skips a body that is not JSON', () => {
    const { socket, got, errors } = reader();
    const body = '{"jsonrpc":"2.0","id":3,"result":null}';
    socket.emit('data', Buffer.from(`content-length: 5\r\n\r\n{nope`, 'utf8'));
    socket.emit('data', Buffer.from(`Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH: ${body.length}\r\n\r\n${body}`, 'utf8'));
    assert.deepEqual(got, [JSON.parse(body)]);
    assert.equal(errors.length, 1);
    assert.equal(socket.destroyed, false);
  });

  it('hangs up on a header without a length, or one that never ends', () => {
    const a = reader();
    a.socket.emit('data', Buffer.from('Content-Type: x\r\n\r\n{}', 'utf8'));
    assert.equal(a.socket.destroyed, true);
    assert.match(a.errors[0] ?? '', /without Content-Length/);
    const b = reader();
    b.socket.emit('data', Buffer.from('X'.repeat(2000), 'utf8'));
    assert.equal(b.socket.destroyed, true);
    assert.match(b.errors[0] ?? '', /longer than 1 KB/);
    assert.deepEqual([...a.got, ...b.got], []);
  });
});
