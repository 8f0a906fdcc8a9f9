// A host that dies during the handshake, after it accepted the connection and before it answered
// the hello (a kill -9 at that moment), must cost the client a retry, never a call that waits
// forever: the hello is rejected when the socket closes and the next host is tried.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { isLedgerError } from '../../../../src/core/errors';
import { HostConnection } from '../../../../src/core/host/client';
import { socketConnection } from '../../../../src/core/host/connection';
import { createOwnerFile } from '../../../../src/core/host/ownerFile';
import { hostPaths } from '../../../../src/core/host/paths';
import { runStandby } from '../../../../src/core/host/standby';
import { folderIdentity } from '../../../../src/core/storage/files';
import { tempDir, useTempDirs } from '../../../helpers/tmp';

const silent = { debug() {}, info() {}, warn() {}, error() {}, addSecret() {}, once() {} };

/** Settles `promise` as 'resolved' / its error, or says it was still waiting after `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | Error | string> {
  return Promise.race([
    promise.catch((err: unknown) => (err instanceof Error ? err : new Error(String(err)))),
    new Promise<string>((resolve) => setTimeout(() => resolve(`still waiting after ${ms} ms`), ms).unref()),
  ]);
}

describe('ledger host handshake', function () {
  this.timeout(30_000);
  useTempDirs();

  it('a host that hangs up before answering the hello is tried again until the deadline, then the call fails as unavailable', async () => {
    const file = path.join(tempDir(), 'data.db');
    const paths = hostPaths(file);
    fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(paths.token, 'x'.repeat(32), { mode: 0o600 });
    // Stands in for a host killed at that moment: reads the hello, then the connection goes.
    let accepted = 0;
    const dying = net.createServer((socket) => {
      accepted++;
      socket.once('data', () => socket.destroy());
    });
    await new Promise<void>((resolve) => dying.listen(paths.socket, resolve));
    try {
      const client = new HostConnection({ file, start: false, reachTimeoutMs: 1_500 });
      const outcome = await Promise.race([
        client.connect().then(
          () => 'connected',
          (err: unknown) => err,
        ),
        new Promise((resolve) => setTimeout(() => resolve('still waiting after 15 s'), 15_000)),
      ]);
      assert.ok(isLedgerError(outcome), `expected an unavailable error, got ${String(outcome)}`);
      assert.equal(outcome.code, 'unavailable');
      assert.ok(accepted >= 2, `the client tried the next host (${accepted} connections)`);
      await client.close();
    } finally {
      await new Promise((resolve) => dying.close(resolve));
    }
  });

  it('a request pending on a socket connection is rejected when the peer hangs up without answering', async () => {
    const sockPath = path.join(tempDir(), 'sock');
    const server = net.createServer((socket) => socket.once('data', () => socket.destroy()));
    await new Promise<void>((resolve) => server.listen(sockPath, resolve));
    try {
      const socket = net.createConnection(sockPath);
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      const connection = socketConnection(socket);
      connection.listen();
      const outcome = await within(connection.sendRequest('anything', {}), 10_000);
      assert.ok(outcome instanceof Error, `expected the request to be rejected, got ${String(outcome)}`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a standby whose host dies before answering its hello takes over instead of waiting forever', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'data.db');
    const paths = hostPaths(file);
    fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(paths.token, 'x'.repeat(32), { mode: 0o600 });
    // The pid file names a process that has exited, and its socket reads the hello and hangs up:
    // a host killed at the moment its standby said hello.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    assert.ok(createOwnerFile(paths.pid, { pid: gone, at: Date.now() }));
    const dying = net.createServer((socket) => socket.once('data', () => socket.destroy()));
    await new Promise<void>((resolve) => dying.listen(paths.socket, resolve));
    try {
      const outcome = await within(runStandby(file, folderIdentity(dir) ?? 'none', silent), 10_000);
      assert.ok(outcome && typeof outcome === 'object' && 'owner' in outcome, `expected the standby to take over, got ${String(outcome)}`);
      assert.equal(outcome.owner.pid, process.pid);
    } finally {
      await new Promise((resolve) => dying.close(resolve));
      fs.rmSync(paths.pid, { force: true });
      fs.rmSync(paths.standby, { force: true });
    }
  });
});
