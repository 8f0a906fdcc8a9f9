// `agent-progress host status|stop`: the ledger host serving this ledger file, or this PostgreSQL
// ledger (one process per ledger on the machine that every server, the CLI and the editor share).

import { LedgerError, isLedgerError } from '../core/errors';
import type * as HostClientModule from '../core/host/client';
import { processAlive } from '../core/host/ownerFile';
import type { HostStatus } from '../core/host/protocol';
import { flagSet, parseArgv, UsageError } from './args';
import type { Command } from './command';

function describe(s: HostStatus): string {
  const mb = (n: number): string => `${(n / (1 << 20)).toFixed(1)} MB`;
  return [
    `Ledger host pid ${s.pid}, version ${s.version} (build ${s.build})`,
    s.searchIndex
      ? `  ledger   ${s.ledger} (PostgreSQL; search index ${s.searchIndex.building && s.searchIndex.entries === 0 ? 'being built' : `of ${s.searchIndex.entries} entries, ${s.searchIndex.answers} searches answered from it`})`
      : `  ledger   ${s.ledger} (${mb(s.ledgerBytes)} snapshot, ${mb(s.journalBytes)} journal)`,
    `  clients  ${s.clients}`,
    `  memory   ${mb(s.rssBytes)} RSS${s.heapUsedBytes !== undefined && s.arrayBufferBytes !== undefined ? ` (JavaScript heap ${mb(s.heapUsedBytes)}, array buffers ${mb(s.arrayBufferBytes)})` : ''}`,
    `  since    ${s.startedAt}, exits after ${Math.round(s.idleMs / 1000)} s without clients`,
    `  socket   ${s.socket}`,
  ].join('\n');
}

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

export const hostCommand: Command = {
  name: 'host',
  summary: 'show or stop the ledger host serving this ledger',
  group: 'Ledger',
  usage: `Usage: agent-progress host status|stop [--json]

Every MCP server, CLI call and editor window on this machine reaches a ledger file (or a
PostgreSQL ledger, AGENT_PROGRESS_DATABASE_URL) through one ledger host process, started on demand
and gone after 10 minutes without clients (AGENT_PROGRESS_HOST_IDLE_MS;
AGENT_PROGRESS_LEDGER_HOST=off opens the ledger directly instead). A PostgreSQL ledger's host
ranks searches from an index in memory.

  status   its pid, version, clients, ledger size and memory; says so when none is running
  stop     asks it to finish the calls under way and exit (the next client starts another)

Options:
  --json   print the answer as JSON`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { json: {} });
    const action = p.positionals[0];
    if (p.positionals.length !== 1 || (action !== 'status' && action !== 'stop')) throw new UsageError('Say "status" or "stop"');
    const json = flagSet(p, 'json');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs (ARCHITECTURE.md, "Bundles and the start path")
    const { HostConnection } = require('../core/host/client') as typeof HostClientModule;
    const databaseUrl = ctx.services.databaseUrl;
    const connection = new HostConnection({ file: ctx.services.dbPath, ...(databaseUrl ? { databaseUrl } : {}), start: false, reachTimeoutMs: 3_000 });
    try {
      let status: HostStatus;
      try {
        status = await connection.status();
      } catch (err) {
        if (isLedgerError(err) && err.code === 'unavailable') {
          if (json) ctx.out.json({ running: false, ledger: connection.paths.ledger });
          else ctx.out.line(`No ledger host is running for ${connection.paths.ledger}`);
          return;
        }
        throw err;
      }
      if (action === 'status') {
        if (json) ctx.out.json({ running: true, ...status });
        else ctx.out.line(describe(status));
        return;
      }
      let pid = status.pid;
      try {
        pid = await connection.stop();
      } catch (err) {
        // The host left before its answer did: it stopped all the same.
        if (!isLedgerError(err) || err.code !== 'unavailable') throw err;
      }
      const until = Date.now() + 10_000;
      while (processAlive(pid) && Date.now() < until) await sleep(20);
      if (processAlive(pid)) throw new LedgerError('unavailable', `The ledger host pid ${pid} did not exit within 10 s`);
      if (json) ctx.out.json({ stopped: true, pid });
      else ctx.out.line(`Stopped the ledger host pid ${pid}`);
    } finally {
      await connection.close();
    }
  },
};
