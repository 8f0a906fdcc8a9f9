// A host that dies during the handshake, after it accepted the connection and before it answered
// the hello (a kill -9 at that moment), must cost the client a retry, never a call that waits
// forever: the hello is rejected when the socket closes and the next host is tried.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { isLedgerError } from '../../../../src/core/errors';
import { HostConnection } from '../../../../src/core/host/client';
import { hostPaths } from '../../../../src/core/host/paths';
import { tempDir, useTempDirs } from '../../../helpers/tmp';

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
});
