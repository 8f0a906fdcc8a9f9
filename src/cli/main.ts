// The CLI's entry (dist/cli.js): global options, command dispatch, exit codes. Every command is a
// thin wrapper over the same core services as the MCP tools.
// Exit codes: 0 done, 1 failed (not found, ledger unavailable), 2 bad usage or invalid arguments.

import { isatty } from 'node:tty';
import { loadConfig } from '../core/config';
import { isPostgresUrl } from '../core/storage/postgres/url';
import { isLedgerError } from '../core/errors';
import { createLogger } from '../core/log';
import { Services } from '../core/services';
import { VERSION } from '../core/version';
import { UsageError } from './args';
import type { Command, CommandContext } from './command';
import { COPY_COMMANDS } from './copyCommands';
import { LEDGER_COMMANDS } from './ledgerCommands';
import { LOG_COMMANDS } from './logCommands';
import { QUEUE_COMMANDS } from './queueCommands';
import { processOutput, type Output } from './output';
import { WORKFLOW_COMMANDS } from './workflowCommands';
import { cliWording } from './wording';
import { REVIEW_COMMANDS } from './reviewCommands';
import { hostCommand } from './hostCommands';
import { DIGEST_COMMANDS } from './digestCommands';
import { isMainBundle } from '../core/mainBundle';

const COMMANDS: readonly Command[] = [
  ...LOG_COMMANDS,
  ...QUEUE_COMMANDS,
  ...WORKFLOW_COMMANDS,
  ...LEDGER_COMMANDS,
  ...COPY_COMMANDS,
  ...REVIEW_COMMANDS,
  ...DIGEST_COMMANDS,
  hostCommand,
];

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const groups = [...new Set(COMMANDS.map((c) => c.group ?? 'Commands'))];
  const sections = groups.map(
    (g) =>
      `${g}:\n${COMMANDS.filter((c) => (c.group ?? 'Commands') === g)
        .map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`)
        .join('\n')}`,
  );
  return `Usage: agent-progress [--db PATH|URL] [--config FILE] COMMAND [options]

The Agent Progress ledger from a terminal: the same ledger the MCP server and the VS Code view use.

${sections.join('\n\n')}

Global options:
  --db PATH    ledger file (default: $AGENT_PROGRESS_DB_PATH, else ~/.agent-progress-mcp/data.db),
               or a PostgreSQL connection string (default: $AGENT_PROGRESS_DATABASE_URL)
  --config FILE  a trusted config file (default: $AGENT_PROGRESS_CONFIG); without it, the user's
               ~/.config/agent-progress/config.json, then ./agent-progress.config.json with its
               harmless keys only (openai.model, logging.level)
  --help       show help (after a command: that command's help)
  --version    print the version

Run "agent-progress COMMAND --help" for a command's options.
Exit codes: 0 done, 1 failed (not found, refused, ledger unavailable), 2 bad usage or invalid arguments.`;
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

export async function runCli(argv: string[], out: Output, io: { cwd: string; stdinIsTty: boolean; readStdin: () => Promise<string> }): Promise<number> {
  let db: string | undefined;
  let configFile: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--db') {
      db = argv[++i];
      if (db === undefined) {
        out.error('agent-progress: --db needs a value');
        return 2;
      }
    } else if (arg.startsWith('--db=')) db = arg.slice(5);
    else if (arg === '--config') {
      configFile = argv[++i];
      if (configFile === undefined || configFile.trim() === '') {
        out.error('agent-progress: --config needs a file path');
        return 2;
      }
    } else if (arg.startsWith('--config=')) configFile = arg.slice(9);
    else rest.push(arg);
  }
  const [name, ...args] = rest;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? out.error : out.line)(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    out.line(VERSION);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    out.error(`agent-progress: unknown command "${name}". Commands: ${COMMANDS.map((c) => c.name).join(', ')}.`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    out.line(command.usage);
    return 0;
  }
  const wantsJson = args.includes('--json');
  let services: Services | undefined;
  try {
    // --db takes a file path or a PostgreSQL connection string; either one replaces the other from the environment.
    const dbEnv = db === undefined ? {} : isPostgresUrl(db) ? { AGENT_PROGRESS_DATABASE_URL: db } : { AGENT_PROGRESS_DB_PATH: db, AGENT_PROGRESS_DATABASE_URL: '' };
    const config = loadConfig({ env: { ...process.env, ...dbEnv }, cwd: io.cwd, ...(configFile !== undefined ? { configFile } : {}) });
    const logger = createLogger({ level: config.logLevel === 'info' ? 'warn' : config.logLevel, sink: (line) => out.error(line) });
    logger.addSecret(config.openai.apiKey);
    for (const warning of config.warnings) logger.warn(warning);
    services = new Services({ config, logger });
    const ctx: CommandContext = { services, out, cwd: io.cwd, readStdin: io.readStdin, stdinIsTty: io.stdinIsTty };
    await command.run(args, ctx);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      out.error(`agent-progress ${name}: ${err.message}. Run "agent-progress ${name} --help".`);
      return command.exitCodeForUsage ?? 2;
    }
    if (isLedgerError(err)) {
      const message = cliWording(
        err.message,
        command,
        COMMANDS.map((c) => c.name),
      );
      if (wantsJson) out.json({ error: { ...err.toJSON(), message } });
      out.error(`agent-progress ${name}: ${message}`);
      return err.code === 'invalid_argument' ? (command.exitCodeForUsage ?? 2) : 1;
    }
    out.error(`agent-progress ${name}: unexpected error: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await services?.close();
  }
}

if (isMainBundle(module, require.main)) {
  // isatty(0) rather than process.stdin.isTTY: the getter opens stdin as a stream (loading Node's stream, fs and readline modules), which only commands that read stdin need.
  runCli(process.argv.slice(2), processOutput, { cwd: process.cwd(), stdinIsTty: isatty(0), readStdin }).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`agent-progress: fatal: ${String(err)}\n`);
      process.exit(1);
    },
  );
}
