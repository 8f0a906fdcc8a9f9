// A real MCP server (createServer) on a temp ledger, connected to a real SDK Client in memory.

import * as path from 'node:path';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { silentLogger, type Logger } from '../../src/core/log';
import { Services } from '../../src/core/services';
import { createServer } from '../../src/mcp/server';
import type { ToolsetCatalog, ToolsetName } from '../../src/mcp/toolsets';
import { testPostgres } from './postgres';

/** sqlite: the file opened directly; host: the file through a ledger host process; postgres; postgres-host: PostgreSQL through a ledger host process. */
export type LedgerBackend = 'sqlite' | 'host' | 'postgres' | 'postgres-host';
let backend: LedgerBackend = 'sqlite';

/** The backend connectInMemory opens its ledgers on (onPostgres.test.ts, onHost.test.ts and onPostgresHost.test.ts switch it). */
export function ledgerBackend(): LedgerBackend {
  return backend;
}

export function setLedgerBackend(value: LedgerBackend): void {
  backend = value;
}

/** The Services option for the current backend: a ledger host only in the host modes. */
export function hostOption(): false | { idleMs: number } {
  return backend === 'host' || backend === 'postgres-host' ? { idleMs: 60_000 } : false;
}

async function postgresDatabase(): Promise<string> {
  const server = await testPostgres();
  if (!server) throw new Error('The MCP tests on PostgreSQL need PostgreSQL installed');
  return server.createDatabase();
}

export interface Connected {
  client: Client;
  services: Services;
  dbPath: string;
  close(): Promise<void>;
}

export async function connectInMemory(options: {
  dir: string;
  toolsets?: ToolsetName[];
  clientOptions?: ClientOptions;
  openai?: { apiKey: string | undefined; baseUrl: string; model: string };
  logger?: Logger;
  setupClient?: (client: Client) => void;
  /** The folder workflow snapshots look at (never the repository the tests run in). */
  workspace?: string;
  /** Share these services (and ledger) instead of opening new ones: another client of the same server. */
  services?: Services;
  /** A PostgreSQL ledger instead of the file (default: a fresh database when ledgerBackend() is postgres). */
  databaseUrl?: string;
  /** The workspace's project id, as AGENT_PROGRESS_PROJECT gives it to the server. */
  project?: string;
  /** The clock the services date entries, tasks and leases by (default: now). */
  clock?: () => Date;
  /** Serve the toolsets from these descriptors instead of the shipped ones. */
  catalog?: ToolsetCatalog;
}): Promise<Connected> {
  const dbPath = path.join(options.dir, 'data.db');
  const logger = options.logger ?? silentLogger;
  const onPostgres = ledgerBackend() === 'postgres' || ledgerBackend() === 'postgres-host';
  const databaseUrl = options.databaseUrl ?? (onPostgres && !options.services ? await postgresDatabase() : undefined);
  const services =
    options.services ??
    new Services({
      config: { dbPath, ...(databaseUrl ? { databaseUrl } : {}), openai: options.openai ?? { apiKey: undefined, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } },
      logger,
      host: hostOption(),
      ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
  const server = createServer({
    services,
    logger,
    toolsets: options.toolsets ?? ['progress'],
    version: 'test',
    ...(options.project !== undefined ? { project: options.project } : {}),
    ...(options.catalog ? { catalog: options.catalog } : {}),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test-client', version: '1.0.0' }, options.clientOptions);
  options.setupClient?.(client);
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    services,
    dbPath,
    close: async () => {
      await client.close();
      await server.close();
      if (!options.services) await services.close();
    },
  };
}
