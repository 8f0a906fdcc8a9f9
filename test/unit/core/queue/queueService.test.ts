// The queue service over a real ledger, with the store calls it makes counted: an agent's call is
// one trip to the ledger, and a session that no longer holds its agent is refused inside that
// trip, changing nothing.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isLedgerError } from '../../../../src/core/errors';
import { silentLogger } from '../../../../src/core/log';
import { QueueService } from '../../../../src/core/queue/queueService';
import { newQueueSession } from '../../../../src/core/queue/session';
import { openLedger } from '../../../../src/core/storage/openLedger';
import type { QueueStore } from '../../../../src/core/storage/queueStore';
import type { Ledger } from '../../../../src/core/storage/store';
import { tempDir, useTempDirs } from '../../../helpers/tmp';

const operator = { kind: 'operator', name: 'test' } as const;

describe('queue service', () => {
  useTempDirs();
  let ledger: Ledger;
  let calls: string[];
  let service: QueueService;

  beforeEach(async () => {
    ledger = await openLedger({ file: path.join(tempDir(), 'data.db') });
    calls = [];
    // Every store method the service calls, by name, in order.
    const counted = new Proxy(ledger.queue, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(String(name));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as QueueStore;
    service = new QueueService({ store: counted, logger: silentLogger });
    await service.createProject({ name: 'p' }, operator);
    await service.createTasksBulk({ projectId: 'p', tasks: [{ instructions: 'one' }, { instructions: 'two' }] }, operator);
  });
  afterEach(async () => {
    await ledger.close();
  });

  async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
    try {
      await p;
    } catch (err) {
      if (isLedgerError(err)) return { code: err.code, message: err.message };
      throw err;
    }
    assert.fail('the call was not refused');
  }

  it('makes one call to the store for each call of the agent a session registered as', async () => {
    const session = newQueueSession();
    await service.registerAgent({ projectId: 'p', agentName: 'a' }, session);
    calls = [];
    const task = (await service.requestTask({}, session)).task!;
    await service.extendLease({ taskId: task.id, additionalMinutes: 1 }, session);
    await service.getCurrentTask({}, session);
    await service.completeTask({ taskId: task.id, explanation: 'done' }, session);
    const next = (await service.requestTask({}, session)).task!;
    await service.failTask({ taskId: next.id, explanation: 'no', canRetry: false }, session);
    assert.deepEqual(calls, ['requestTask', 'extendLease', 'currentTask', 'completeTask', 'requestTask', 'failTask']);
  });

  it('refuses a session whose agent another session took over inside that call, and changes nothing', async () => {
    const first = newQueueSession();
    const { apiKey } = await service.registerAgent({ projectId: 'p', agentName: 'a' }, first);
    const task = (await service.requestTask({}, first)).task!;
    const second = newQueueSession();
    assert.equal((await service.registerAgent({ projectId: 'p', agentName: 'a', apiKey }, second)).reconnected, true);
    const before = (await ledger.stats()).changes;
    calls = [];
    for (const call of [
      () => service.requestTask({}, first),
      () => service.getCurrentTask({}, first),
      () => service.completeTask({ taskId: task.id, explanation: 'done' }, first),
      () => service.failTask({ taskId: task.id, explanation: 'no' }, first),
      () => service.extendLease({ taskId: task.id, additionalMinutes: 1 }, first),
    ]) {
      const refused = await refusal(call());
      assert.equal(refused.code, 'permission_denied');
      assert.equal(refused.message, 'Agent a is now connected from another session; pass its apiKey to take it back here, or register another agent.');
    }
    assert.deepEqual(calls, ['requestTask', 'currentTask', 'completeTask', 'failTask', 'extendLease']);
    assert.equal((await ledger.stats()).changes, before, 'the refused calls wrote nothing');
    const held = (await service.getCurrentTask({}, second))!;
    assert.deepEqual([held.id, held.status, held.leaseExpiresAt], [task.id, 'running', task.leaseExpiresAt]);
  });
});
