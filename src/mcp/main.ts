// The bundled MCP server's entry (dist/server.js): argv and env, the stdio transport, signals.
// stdout carries only the protocol; every log line goes to stderr. The ledger opens on the first
// tool call that needs it, so spawning the server is cheap.

import { ledgerLabel, loadConfig } from '../core/config';
import { isLedgerError } from '../core/errors';
import { createLogger, type Logger } from '../core/log';
import { Services } from '../core/services';
import { VERSION } from '../core/version';
import { newQueueSession } from '../core/queue/session';
import type * as HttpModule from './http';
import { HTTP_SESSION_DEFAULTS } from './httpDefaults';
import { createServer } from './server';
import { serveToolCalls, StdioTransport } from './stdioTransport';
import { parseToolsets, TOOLSET_NAMES, ToolsetError, type ToolsetName } from './toolsets';
import { isMainBundle } from '../core/mainBundle';

const USAGE = `Usage: agent-progress-mcp [--toolset NAME[,NAME...]] [--db PATH] [--http PORT]

Serves the Agent Progress ledger to MCP clients over stdio, or over Streamable HTTP with --http.

Options:
  --toolset NAMES         toolsets to serve, comma-separated (${TOOLSET_NAMES.join(', ')}), or all. Default: progress
                          Toolsets that share a tool name (queue and workflow: complete_task) need separate
                          servers; all serves every toolset that fits beside the ones before it (not workflow).
  --db PATH               ledger file (default: $AGENT_PROGRESS_DB_PATH, else ~/.agent-progress-mcp/data.db)
  --config FILE           a trusted config file, which may name endpoints, keys and the ledger
  --http PORT             serve MCP at http://HOST:PORT/mcp instead of stdio (0: any free port), with /metrics
                          and /healthz; every request but /healthz needs Authorization: Bearer <token>
  --host HOST             address to listen on (default 127.0.0.1)
  --allowed-hosts LIST    Host headers accepted besides 127.0.0.1/localhost:PORT (behind a proxy)
  --allowed-origins LIST  Origin headers accepted besides http://127.0.0.1/localhost:PORT
  --max-sessions N        HTTP sessions held at once; a new one beyond it ends the least recently used
                          (default ${HTTP_SESSION_DEFAULTS.maxSessions}, or $AGENT_PROGRESS_HTTP_MAX_SESSIONS)
  --session-idle-minutes M  an HTTP session unused this long ends; the client initializes a new one
                          (default ${HTTP_SESSION_DEFAULTS.sessionIdleMinutes}, or $AGENT_PROGRESS_HTTP_SESSION_IDLE_MINUTES)
  --help                  show this help
  --version               print the version

Environment:
  AGENT_PROGRESS_DB_PATH    ledger file
  OPENAI_API_KEY            key for summaries by an OpenAI-compatible endpoint (optional)
  OPENAI_BASE_URL           endpoint (default https://api.openai.com/v1)
  AGENT_PROGRESS_MODEL      summary model (default gpt-4o-mini)
  AGENT_PROGRESS_LOG_LEVEL  debug, info, warn or error (default info)
  AGENT_PROGRESS_PROJECT    this workspace's project id, named in the server's instructions
  AGENT_PROGRESS_WORKSPACE  the folder workflow snapshots look at (default: the working directory)
  AGENT_PROGRESS_HTTP_TOKEN the bearer token for --http (default: generated once, kept in <ledger>.http-token);
                            at least 32 characters when --host is not a loopback address
  AGENT_PROGRESS_LOG_FORMAT text or json (default: json with --http, text on stdio)
  AGENT_PROGRESS_SEARCH_INDEX  off: with --http on PostgreSQL, rank searches in PostgreSQL instead
                            of an index in memory (about 2 KB per entry, built after start)
  AGENT_PROGRESS_CLAUDE_HOME, AGENT_PROGRESS_CODEX_HOME, AGENT_PROGRESS_GEMINI_HOME,
  AGENT_PROGRESS_VSCODE_USER_DIR
                            transcript folders for the traces toolset (default: each agent's own)
  AGENT_PROGRESS_TRACES_HOME  a folder standing in for $HOME in those defaults
  AGENT_PROGRESS_CONFIG     a trusted config file (as --config FILE)
  Config files: ~/.config/agent-progress/config.json ($XDG_CONFIG_HOME) and --config FILE may set
  everything; agent-progress.config.json in the working directory only openai.model and
  logging.level (no endpoints, keys, ledger paths or \${VAR}). The environment wins over files.
`;

interface Args {
  toolsets: ToolsetName[];
  db: string | undefined;
  /** A trusted config file (--config); else AGENT_PROGRESS_CONFIG. */
  config: string | undefined;
  help: boolean;
  version: boolean;
  http: number | undefined;
  host: string;
  allowedHosts: string[];
  allowedOrigins: string[];
  maxSessions: number | undefined;
  sessionIdleMinutes: number | undefined;
  /** Toolsets "all" left out because their tools collide with an earlier one. */
  skipped: { toolset: ToolsetName; tool: string; with: ToolsetName }[];
}

class UsageError extends Error {}

function maxSessions(raw: string, where: string): number {
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n < 1 || n > 100_000) throw new UsageError(`${where} needs a whole number of sessions from 1 to 100000, got "${raw}"`);
  return n;
}

function idleMinutes(raw: string, where: string): number {
  const n = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 525_600) throw new UsageError(`${where} needs a number of minutes above 0 (at most 525600, a year), got "${raw}"`);
  return n;
}

/** The HTTP session settings: flags, else the environment, else the defaults. */
export function httpSessionSettings(args: Pick<Args, 'maxSessions' | 'sessionIdleMinutes'>, env: NodeJS.ProcessEnv): { maxSessions: number; sessionIdleMs: number } {
  const fromEnv = (name: string, parse: (raw: string, where: string) => number): number | undefined => {
    const raw = env[name];
    return raw === undefined || raw.trim() === '' ? undefined : parse(raw, name);
  };
  const max = args.maxSessions ?? fromEnv('AGENT_PROGRESS_HTTP_MAX_SESSIONS', maxSessions) ?? HTTP_SESSION_DEFAULTS.maxSessions;
  const idle = args.sessionIdleMinutes ?? fromEnv('AGENT_PROGRESS_HTTP_SESSION_IDLE_MINUTES', idleMinutes) ?? HTTP_SESSION_DEFAULTS.sessionIdleMinutes;
  return { maxSessions: max, sessionIdleMs: Math.round(idle * 60_000) };
}

export function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    toolsets: ['progress'],
    db: undefined,
    config: undefined,
    help: false,
    version: false,
    http: undefined,
    host: '127.0.0.1',
    allowedHosts: [],
    allowedOrigins: [],
    maxSessions: undefined,
    sessionIdleMinutes: undefined,
    skipped: [],
  };
  const list = (v: string): string[] =>
    v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--toolset':
      case '--toolsets':
        args.skipped = [];
        args.toolsets = parseToolsets(value(), args.skipped);
        break;
      case '--db':
        args.db = value();
        break;
      case '--config':
        args.config = value();
        break;
      case '--http': {
        const raw = value();
        const port = Number(raw);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--http needs a port number (0-65535), got "${raw}"`);
        args.http = port;
        break;
      }
      case '--host':
        args.host = value();
        break;
      case '--allowed-hosts':
        args.allowedHosts = list(value());
        break;
      case '--allowed-origins':
        args.allowedOrigins = list(value());
        break;
      case '--max-sessions':
        args.maxSessions = maxSessions(value(), flag);
        break;
      case '--session-idle-minutes':
        args.sessionIdleMinutes = idleMinutes(value(), flag);
        break;
      case '--help':
      case '-h':
        args.help = true;
        break;
      case '--version':
      case '-v':
        args.version = true;
        break;
      default:
        throw new UsageError(`Unknown option ${arg}`);
    }
  }
  return args;
}

/**
 * Whether this server keeps ranked search's index in memory: a team server (`--http`) on
 * PostgreSQL serving the progress tools, unless AGENT_PROGRESS_SEARCH_INDEX=off. One process
 * serves every client of the machine there, so one index (about 2 KB per entry) answers all
 * their first searches; stdio servers, one per client, ask PostgreSQL.
 */
function searchIndexWanted(args: Pick<Args, 'http' | 'toolsets'>, databaseUrl: string | undefined, env: NodeJS.ProcessEnv): boolean {
  return args.http !== undefined && !!databaseUrl && args.toolsets.includes('progress') && env.AGENT_PROGRESS_SEARCH_INDEX !== 'off';
}

/** Builds the index in the background once the server listens: searches go to PostgreSQL until it is built. */
async function prepareSearchIndex(services: Services, logger: Logger): Promise<void> {
  const started = Date.now();
  try {
    const ledger = await services.ledger();
    await ledger.progress.prepareSearch();
    logger.info(`Ranked search answers from memory: its index of the ledger's entries was built in ${Date.now() - started} ms`);
  } catch (err) {
    logger.warn(
      `Ranked search stays with PostgreSQL: its index in memory could not be built (${err instanceof Error ? err.message : String(err)}). Set AGENT_PROGRESS_SEARCH_INDEX=off to not try.`,
    );
  }
}

async function main(): Promise<void> {
  // Anything printed by a dependency must not corrupt the protocol stream.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;

  let args: Args;
  let sessions: { maxSessions: number; sessionIdleMs: number };
  try {
    args = parseArgs(process.argv.slice(2));
    sessions = httpSessionSettings(args, process.env);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ToolsetError) {
      process.stderr.write(`agent-progress-mcp: ${err.message.replace(/\.$/, '')}. Run with --help for usage.\n`);
      process.exit(2);
    }
    throw err;
  }
  if (args.help) {
    process.stderr.write(USAGE);
    return;
  }
  if (args.version) {
    process.stderr.write(`${VERSION}\n`);
    return;
  }

  let config;
  try {
    config = loadConfig({ env: args.db ? { ...process.env, AGENT_PROGRESS_DB_PATH: args.db } : process.env, ...(args.config ? { configFile: args.config } : {}) });
  } catch (err) {
    process.stderr.write(`agent-progress-mcp: ${isLedgerError(err) ? err.message : String(err)}\n`);
    process.exit(2);
  }
  const format = process.env.AGENT_PROGRESS_LOG_FORMAT === 'json' || (args.http !== undefined && process.env.AGENT_PROGRESS_LOG_FORMAT !== 'text') ? 'json' : 'text';
  const logger = createLogger({ level: config.logLevel, format });
  logger.addSecret(config.openai.apiKey);
  for (const warning of config.warnings) logger.warn(warning);
  if (!config.openai.apiKey) {
    logger.once('no-key', 'info', "OPENAI_API_KEY is not set: summaries come from the client's model (MCP sampling) when it offers one, else from an extract of the entry.");
  }

  for (const s of args.skipped) {
    logger.warn(`--toolset all leaves out ${s.toolset}: its ${s.tool} collides with ${s.with}'s. Run a second server with --toolset ${s.toolset} for it.`);
  }
  const project = process.env.AGENT_PROGRESS_PROJECT?.trim() || undefined;
  let stopReaper: (() => void) | undefined;
  // The reaper runs wherever the queue is served, from the queue's first use (the ledger opens lazily).
  // Such a server watches the ledger, so that its reaper hears of leases and projects that other
  // processes make (the CLI's, another server's) while it is idle.
  const searchIndex = searchIndexWanted(args, config.databaseUrl, process.env);
  const services = new Services({
    config,
    logger,
    ledger: { watch: args.toolsets.includes('queue'), memoryIndex: searchIndex },
    onQueueReady: (queue) => {
      if (args.toolsets.includes('queue')) stopReaper = queue.startReaper({ sessionIdleMs: args.http !== undefined ? sessions.sessionIdleMs : undefined });
    },
  });

  let closing = false;
  let stop: () => Promise<void> = async () => undefined;
  const shutdown = async (why: string): Promise<void> => {
    if (closing) return;
    closing = true;
    logger.info(`Shutting down (${why})`);
    setTimeout(() => process.exit(0), 15_000).unref();
    stopReaper?.();
    await stop().catch((err: unknown) => logger.warn(`Stopping: ${String(err)}`));
    await services.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGHUP', () => void shutdown('SIGHUP'));
  process.on('unhandledRejection', (reason) => logger.error(`Unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`));
  process.on('uncaughtException', (err) => logger.error(`Uncaught exception: ${err.stack ?? err.message}`));

  if (args.http !== undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- only --http loads node:http and the SDK's HTTP transport
    const { HttpStartRefused, httpToken, startHttpServer } = require('./http') as typeof HttpModule;
    let toolsetCheck;
    try {
      toolsetCheck = createServer({ services, logger, toolsets: args.toolsets, version: VERSION, project });
    } catch (err) {
      process.stderr.write(`agent-progress-mcp: ${(err as Error).message}\n`);
      process.exit(2);
    }
    void toolsetCheck.close();
    let token: string;
    let source: string;
    try {
      const chosen = httpToken(process.env, `${config.dbPath}.http-token`);
      ({ token, source } = chosen);
      if (chosen.warning) logger.warn(chosen.warning);
    } catch (err) {
      process.stderr.write(`agent-progress-mcp: ${(err as Error).message}\n`);
      process.exit(2);
    }
    logger.addSecret(token);
    let http;
    try {
      http = await startHttpServer(
        { services, logger, toolsets: args.toolsets, version: VERSION, project },
        { port: args.http, host: args.host, token, allowedHosts: args.allowedHosts, allowedOrigins: args.allowedOrigins, ...sessions },
      );
    } catch (err) {
      if (!(err instanceof HttpStartRefused)) throw err;
      process.stderr.write(`agent-progress-mcp: ${err.message}\n`);
      process.exit(2);
    }
    stop = () => http.close();
    if (args.toolsets.includes('queue')) await services.queue();
    if (searchIndex) void prepareSearchIndex(services, logger);
    const listening = `${http.address.includes(':') ? `[${http.address}]` : http.address}:${http.port}`;
    logger.info(
      `Agent Progress ${VERSION} serving ${args.toolsets.join(', ')} at ${http.url}, listening on ${listening}${http.address === '0.0.0.0' || http.address === '::' ? ' (every interface)' : ''} ` +
        `(bearer token: ${source}; at most ${sessions.maxSessions} sessions, ended after ${sessions.sessionIdleMs / 60_000} minutes idle); ledger ${ledgerLabel(config)}`,
      { address: http.address, port: http.port },
    );
    return;
  }

  const session = newQueueSession();
  const server = createServer({ services, logger, toolsets: args.toolsets, version: VERSION, project, session });
  const transport = new StdioTransport();
  stop = async () => {
    await server.close().catch(() => undefined);
    // This process was the agent's session: it is no longer connected (its task keeps its lease).
    if (session.agent) await (await services.queue()).endSession(session).catch(() => undefined);
  };
  process.stdin.on('end', () => void shutdown('stdin closed'));
  process.stdin.on('close', () => void shutdown('stdin closed'));
  await server.connect(transport);
  serveToolCalls(server.server, transport);
  logger.info(`Agent Progress ${VERSION} serving ${args.toolsets.join(', ')} over stdio; ledger ${ledgerLabel(config)} (opened on first use)`);
}

if (isMainBundle(module, require.main)) {
  main().catch((err: unknown) => {
    process.stderr.write(`agent-progress-mcp: fatal: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
