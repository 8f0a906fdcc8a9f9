// Configuration of the server and CLI (seed progress-tracker §7): defaults, then
// agent-progress.config.json with ${VAR} expansion, then environment variables, which win.
// Reads files and env only; opens nothing.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { invalidArgument } from './errors';
import { isLogLevel, type LogLevel } from './log';
import { checkPostgresUrl, redactUrl } from './storage/postgres/url';

export const CONFIG_FILE_NAME = 'agent-progress.config.json';
export const DEFAULT_MODEL = 'gpt-4o-mini';
export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAiConfig {
  apiKey: string | undefined;
  baseUrl: string;
  model: string;
}

export interface Config {
  dbPath: string;
  /** A PostgreSQL connection string: the team ledger, used instead of the file at dbPath. */
  databaseUrl?: string | undefined;
  openai: OpenAiConfig;
  logLevel: LogLevel;
  /** The config file that was read, if any. */
  configFile: string | undefined;
  /** Problems that do not stop the server (unknown keys, unset variables), for the log. */
  warnings: string[];
}

export type Env = Record<string, string | undefined>;

/** Where the ledger lives, for log lines and status: the file, or the database with its password redacted. */
export function ledgerLabel(config: Pick<Config, 'dbPath' | 'databaseUrl'>): string {
  return config.databaseUrl ? `PostgreSQL ${redactUrl(config.databaseUrl)}` : config.dbPath;
}

export function defaultDbPath(home = os.homedir()): string {
  return path.join(home, '.agent-progress-mcp', 'data.db');
}

/**
 * Resolves a ledger path given by a person: `~` expanded, relative paths against `base`,
 * `..` segments and NUL refused (seed §10.3: no directory traversal), a directory refused.
 */
export function resolveLedgerPath(raw: string, base: string, source: string): string {
  const trimmed = raw.trim();
  if (trimmed.length === 0) throw invalidArgument(`${source} is empty: give a file path such as ~/.agent-progress-mcp/data.db`);
  if (trimmed.includes('\0')) throw invalidArgument(`${source} contains a NUL character`);
  const segments = trimmed.split(/[\\/]+/);
  if (segments.includes('..')) {
    throw invalidArgument(`${source} must not contain '..' segments (got ${JSON.stringify(trimmed)}): give the path without them`);
  }
  let expanded = trimmed;
  if (expanded === '~' || expanded.startsWith('~/') || expanded.startsWith('~\\')) {
    expanded = path.join(os.homedir(), expanded.slice(1));
  }
  const resolved = path.resolve(base, expanded);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(resolved);
  } catch {
    stat = undefined;
  }
  if (stat?.isDirectory()) {
    throw invalidArgument(`${source} points at a directory (${resolved}): give a file path such as ${path.join(resolved, 'data.db')}`);
  }
  return resolved;
}

interface FileShape {
  dbPath?: unknown;
  databaseUrl?: unknown;
  openai?: { apiKey?: unknown; baseUrl?: unknown; model?: unknown };
  logging?: { level?: unknown };
}

function expandVars(value: string, env: Env, where: string, warnings: string[]): string | undefined {
  let missing = false;
  const out = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
    const v = env[name];
    if (v === undefined || v === '') {
      missing = true;
      warnings.push(`${where} refers to \${${name}}, which is not set`);
      return '';
    }
    return v;
  });
  if (missing && out.trim() === '') return undefined;
  return out;
}

function readConfigFile(file: string): FileShape {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw invalidArgument(`Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'read failed'}. Fix its permissions or remove it.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw invalidArgument(`${file} is not valid JSON (${(err as Error).message}). Fix the file or remove it.`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalidArgument(`${file} must contain a JSON object such as {"dbPath": "./data/progress.db"}`);
  }
  return parsed as FileShape;
}

function stringField(value: unknown, field: string, file: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidArgument(`${file}: ${field} must be a string`);
  return value;
}

export function loadConfig(options: { env?: Env; cwd?: string; configFile?: string } = {}): Config {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const warnings: string[] = [];
  const explicitFile = options.configFile ?? env.AGENT_PROGRESS_CONFIG;
  const candidate = explicitFile ? path.resolve(cwd, explicitFile) : path.join(cwd, CONFIG_FILE_NAME);
  let file: FileShape = {};
  let configFile: string | undefined;
  if (fs.existsSync(candidate)) {
    configFile = candidate;
    file = readConfigFile(candidate);
    const known = new Set(['dbPath', 'databaseUrl', 'openai', 'logging']);
    for (const key of Object.keys(file)) if (!known.has(key)) warnings.push(`${candidate}: unknown key "${key}" ignored`);
  } else if (explicitFile) {
    throw invalidArgument(`Config file ${candidate} does not exist: fix AGENT_PROGRESS_CONFIG or create the file`);
  }
  const where = configFile ?? CONFIG_FILE_NAME;
  const fromFile = (value: unknown, field: string): string | undefined => {
    const s = stringField(value, field, where);
    return s === undefined ? undefined : expandVars(s, env, `${where}: ${field}`, warnings);
  };
  const fileOpenAi = file.openai && typeof file.openai === 'object' ? file.openai : {};
  const fileLogging = file.logging && typeof file.logging === 'object' ? file.logging : {};
  const nonEmpty = (v: string | undefined): string | undefined => (v !== undefined && v.trim() !== '' ? v : undefined);

  const envDb = nonEmpty(env.AGENT_PROGRESS_DB_PATH);
  const fileDb = fromFile(file.dbPath, 'dbPath');
  const dbPath = envDb
    ? resolveLedgerPath(envDb, cwd, 'AGENT_PROGRESS_DB_PATH')
    : fileDb
      ? resolveLedgerPath(fileDb, path.dirname(where), `${where}: dbPath`)
      : defaultDbPath();

  const rawUrl = nonEmpty(env.AGENT_PROGRESS_DATABASE_URL) ?? nonEmpty(fromFile(file.databaseUrl, 'databaseUrl'));
  const databaseUrl = rawUrl === undefined ? undefined : checkPostgresUrl(rawUrl, env.AGENT_PROGRESS_DATABASE_URL?.trim() ? 'AGENT_PROGRESS_DATABASE_URL' : `${where}: databaseUrl`);

  const model = nonEmpty(env.AGENT_PROGRESS_MODEL) ?? nonEmpty(fromFile(fileOpenAi.model, 'openai.model')) ?? DEFAULT_MODEL;
  if (model.trim() === '') throw invalidArgument('The summary model name must not be empty');
  const baseUrl = nonEmpty(env.OPENAI_BASE_URL) ?? nonEmpty(fromFile(fileOpenAi.baseUrl, 'openai.baseUrl')) ?? DEFAULT_BASE_URL;
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw invalidArgument(`OPENAI_BASE_URL must be an http(s) URL such as ${DEFAULT_BASE_URL}`);
  }
  const apiKey = nonEmpty(env.OPENAI_API_KEY) ?? nonEmpty(fromFile(fileOpenAi.apiKey, 'openai.apiKey'));

  const rawLevel = nonEmpty(env.AGENT_PROGRESS_LOG_LEVEL) ?? nonEmpty(fromFile(fileLogging.level, 'logging.level')) ?? 'info';
  let logLevel: LogLevel = 'info';
  if (isLogLevel(rawLevel)) logLevel = rawLevel;
  else warnings.push(`log level "${rawLevel}" is not one of debug, info, warn, error; using info`);

  return { dbPath, databaseUrl, openai: { apiKey: apiKey?.trim(), baseUrl, model }, logLevel, configFile, warnings };
}
