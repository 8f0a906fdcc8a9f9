// A separate OS process that writes entries into a ledger as fast as it can and prints each id
// once the write is acknowledged (durable). Snapshots are made tiny and frequent so that a kill
// lands during snapshot writing and journal rotation too.
// Usage: node --require tsx/cjs ledgerWriter.ts DB PREFIX COUNT (COUNT -1: until killed)

import { openLedger } from '../../src/core/storage/openLedger';

async function main(): Promise<void> {
  const [db, prefix, countText] = process.argv.slice(2);
  if (!db || !prefix || !countText) throw new Error('usage: ledgerWriter DB PREFIX COUNT');
  const count = Number(countText);
  const ledger = await openLedger({ file: db, checkpoint: { minBytes: 16 << 10, snapshotRatio: 0, idleMs: 20, idleMinBytes: 1 } });
  process.stdout.write('ready\n');
  for (let i = 0; count < 0 || i < count; i++) {
    const id = `${prefix}-${i}`;
    await ledger.progress.insertEntry({
      id,
      projectId: 'crash',
      title: `entry ${id}`,
      content: `written by ${prefix} ${'x'.repeat(200 + (i % 7) * 100)}`,
      createdAt: new Date().toISOString(),
      tags: i % 3 === 0 ? ['three'] : [],
      agentId: prefix,
    });
    process.stdout.write(`${id}\n`);
  }
  await ledger.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`ledgerWriter: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
