// The bundled MCP server's entry (dist/server.js): argv and env, the stdio transport, signals.
// stdout carries only the protocol; every log line goes to stderr. The ledger opens on the first
// tool call that needs it, so spawning the server is cheap.

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { loadConfig } from '../core/config';
import { isLedgerError } from '../core/errors';
import { createLogger } from '../core/log';
import { Services } from '../core/services';
import { VERSION } from '../core/version';
import { createServer } from './server';
import { parseToolsets, TOOLSET_NAMES, ToolsetError, type ToolsetName } from './toolsets';

const USAGE = `Usage: agent-progress-mcp [--toolset NAME[,NAME...]] [--db PATH]

Serves the Agent Progress ledger to MCP clients over stdio.

Options:
  --toolset NAMES  toolsets to serve, comma-separated (${TOOLSET_NAMES.join(', ')}, or all). Default: progress
  --db PATH        ledger file (default: $AGENT_PROGRESS_DB_PATH, else ~/.agent-progress-mcp/data.db)
  --help           show this help
  --version        print the version

Environment:
  AGENT_PROGRESS_DB_PATH    ledger file
  OPENAI_API_KEY            key for summaries by an OpenAI-compatible endpoint (optional)
  OPENAI_BASE_URL           endpoint (default https://api.openai.com/v1)
  AGENT_PROGRESS_MODEL      summary model (default gpt-4o-mini)
  AGENT_PROGRESS_LOG_LEVEL  debug, info, warn or error (default info)
  AGENT_PROGRESS_PROJECT    this workspace's project id, named in the server's instructions
  agent-progress.config.json in the working directory is read too; the environment wins.
`;

interface Args {
  toolsets: ToolsetName[];
  db: string | undefined;
  help: boolean;
  version: boolean;
}

class UsageError extends Error {}

export function parseArgs(argv: readonly string[]): Args {
  const args: Args = { toolsets: ['progress'], db: undefined, help: false, version: false };
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
        args.toolsets = parseToolsets(value());
        break;
      case '--db':
        args.db = value();
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

async function main(): Promise<void> {
  // Anything printed by a dependency must not corrupt the protocol stream.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;

  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
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
    config = loadConfig({ env: args.db ? { ...process.env, AGENT_PROGRESS_DB_PATH: args.db } : process.env });
  } catch (err) {
    process.stderr.write(`agent-progress-mcp: ${isLedgerError(err) ? err.message : String(err)}\n`);
    process.exit(2);
  }
  const logger = createLogger({ level: config.logLevel });
  logger.addSecret(config.openai.apiKey);
  for (const warning of config.warnings) logger.warn(warning);
  if (!config.openai.apiKey) {
    logger.once(
      'no-key',
      'info',
      'OPENAI_API_KEY is not set: summaries come from the client\'s model (MCP sampling) when it offers one, else from an extract of the entry.',
    );
  }

  const services = new Services({ config, logger });
  const project = process.env.AGENT_PROGRESS_PROJECT?.trim() || undefined;
  const server = createServer({ services, logger, toolsets: args.toolsets, version: VERSION, project });
  const transport = new StdioServerTransport();

  let closing = false;
  const shutdown = async (why: string): Promise<void> => {
    if (closing) return;
    closing = true;
    logger.debug(`Shutting down (${why})`);
    setTimeout(() => process.exit(0), 5_000).unref();
    await server.close().catch(() => undefined);
    await services.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGHUP', () => void shutdown('SIGHUP'));
  process.stdin.on('end', () => void shutdown('stdin closed'));
  process.stdin.on('close', () => void shutdown('stdin closed'));
  process.on('unhandledRejection', (reason) => logger.error(`Unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`));
  process.on('uncaughtException', (err) => logger.error(`Uncaught exception: ${err.stack ?? err.message}`));

  await server.connect(transport);
  logger.info(`Agent Progress ${VERSION} serving ${args.toolsets.join(', ')} over stdio; ledger ${config.dbPath} (opened on first use)`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`agent-progress-mcp: fatal: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
