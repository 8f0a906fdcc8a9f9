// A host that dies during the handshake, after it accepted the connection and before it answered
// the hello (a kill -9 at that moment), must cost the client a retry, never a call that waits
// forever: the hello is rejected when the socket closes and the next host is tried. And a host busy
// past its hello deadline (opening a large ledger) answers a hello sent meanwhile, not drop it.

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
import { BUILD, METHODS, PROTOCOL, type HelloResult } from '../../../../src/core/host/protocol';
import { runHost } from '../../../../src/core/host/server';
import { runStandby } from '../../../../src/core/host/standby';
import { folderIdentity } from '../../../../src/core/storage/files';
import { VERSION } from '../../../../src/core/version';
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

  /** A ledger host in this process on a new ledger, once its socket listens. */
  async function hostInProcess(): Promise<{ paths: ReturnType<typeof hostPaths>; stop(): Promise<unknown> }> {
    const dir = tempDir();
    const file = path.join(dir, 'data.db');
    const paths = hostPaths(file);
    fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    let retire: (() => void) | undefined;
    const done = runHost({ file, folder: folderIdentity(dir) ?? 'none', idleMs: 60_000, logger: silent, onSignal: (r) => (retire = r) });
    const deadline = Date.now() + 10_000;
    while (!(fs.existsSync(paths.socket) && fs.existsSync(paths.token) && retire) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(retire, 'the host did not start within 10 s');
    return {
      paths,
      stop: () => {
        retire?.();
        return within(done, 10_000);
      },
    };
  }

  /** A connection to the host that has been accepted (it refused a call before the hello). */
  async function accepted(socketPath: string): Promise<{ socket: net.Socket; connection: ReturnType<typeof socketConnection> }> {
    const socket = net.createConnection(socketPath);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const connection = socketConnection(socket);
    connection.listen();
    const refused = await within(connection.sendRequest(METHODS.status, {}), 5_000);
    assert.ok(refused instanceof Error && /Say hello first/.test(refused.message), `expected the host to ask for a hello, got ${String(refused)}`);
    return { socket, connection };
  }

  it('a connection that never says hello is dropped after the hello deadline', async () => {
    const host = await hostInProcess();
    try {
      const { socket, connection } = await accepted(host.paths.socket);
      const t0 = Date.now();
      const closed = await within(new Promise<void>((resolve) => socket.once('close', () => resolve())), 9_000);
      assert.equal(closed, undefined, `expected the host to hang up, got ${String(closed)}`);
      assert.ok(Date.now() - t0 >= 4_000, `hung up after ${Date.now() - t0} ms, before the deadline`);
      connection.dispose();
    } finally {
      await host.stop();
    }
  });

  it('a hello sent while the host was busy for longer than the hello deadline is answered, not dropped', async () => {
    const host = await hostInProcess();
    try {
      const { socket, connection } = await accepted(host.paths.socket);
      const hello = connection.sendRequest<HelloResult>(METHODS.hello, {
        token: fs.readFileSync(host.paths.token, 'utf8'),
        protocol: PROTOCOL,
        version: VERSION,
        build: BUILD,
        pid: process.pid,
        watch: false,
      });
      // The hello leaves at once; then this process (the host's too) is blocked past the deadline,
      // as a host opening a large ledger on a loaded machine is.
      await new Promise((r) => setImmediate(r));
      const blockedUntil = Date.now() + 6_000;
      while (Date.now() < blockedUntil) {
        /* busy */
      }
      const outcome = await within(hello, 5_000);
      assert.ok(!(outcome instanceof Error) && typeof outcome === 'object', `expected the hello answered, got ${String(outcome)}`);
      assert.equal(outcome.kind, 'ok');
      connection.dispose();
      socket.destroy();
    } finally {
      await host.stop();
    }
  });
});
