// Configuration of the server and CLI (Agent Progress Tracker specification, README "Tools"): defaults, then the user's own
// config file, then the working folder's agent-progress.config.json (untrusted: harmless keys
// only) or a file named by --config / AGENT_PROGRESS_CONFIG (trusted), then environment variables,
// which win. Reads files and env only; opens nothing.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { invalidArgument, isLedgerError } from './errors';
import { readRegularTextSync } from './regularFile';
import { isLogLevel, type LogLevel } from './log';
import { checkPostgresUrl, redactUrl } from './storage/postgres/url';

export const CONFIG_FILE_NAME = 'agent-progress.config.json';
const MAX_CONFIG_BYTES = 1 << 20;
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
 * `..` segments and NUL refused (no directory traversal), a directory refused.
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
    text = readRegularTextSync(file, { maxBytes: MAX_CONFIG_BYTES, what: 'The config file' });
  } catch (err) {
    if (isLedgerError(err)) throw err;
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

/**
 * Keys that name an endpoint, a credential or a storage location: only a trusted file (the
 * user's own, or one named by --config / AGENT_PROGRESS_CONFIG) may set them. A file in the
 * working folder comes with whatever repository was cloned there.
 */
export const TRUSTED_ONLY_KEYS = ['dbPath', 'databaseUrl', 'openai.apiKey', 'openai.baseUrl'] as const;

/** The user's own config file: $XDG_CONFIG_HOME/agent-progress/config.json, else ~/.config/agent-progress/config.json. */
export function userConfigPath(env: Env = process.env, home = os.homedir()): string {
  const xdg = env.XDG_CONFIG_HOME?.trim();
  const base = xdg && path.isAbsolute(xdg) ? xdg : process.platform === 'win32' && env.APPDATA?.trim() ? env.APPDATA.trim() : path.join(home, '.config');
  return path.join(base, 'agent-progress', 'config.json');
}

interface Layer {
  file: string;
  shape: FileShape;
  trusted: boolean;
}

const KNOWN_KEYS = new Set(['dbPath', 'databaseUrl', 'openai', 'logging']);

function readLayer(file: string, trusted: boolean, warnings: string[]): Layer {
  const shape = readConfigFile(file);
  for (const key of Object.keys(shape)) if (!KNOWN_KEYS.has(key)) warnings.push(`${file}: unknown key "${key}" ignored`);
  return { file, shape, trusted };
}

function fieldOf(shape: FileShape, key: string): unknown {
  const [head, tail] = key.split('.') as [keyof FileShape, string | undefined];
  const value = shape[head];
  if (tail === undefined) return value;
  return value && typeof value === 'object' ? (value as Record<string, unknown>)[tail] : undefined;
}

export function loadConfig(options: { env?: Env; cwd?: string; configFile?: string; home?: string } = {}): Config {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const warnings: string[] = [];
  const layers: Layer[] = []; // lowest precedence first
  const userFile = userConfigPath(env, options.home);
  if (fs.existsSync(userFile)) layers.push(readLayer(userFile, true, warnings));
  const explicitFile = options.configFile ?? (env.AGENT_PROGRESS_CONFIG?.trim() || undefined);
  if (explicitFile) {
    const file = path.resolve(cwd, explicitFile);
    if (!fs.existsSync(file)) throw invalidArgument(`Config file ${file} does not exist: fix --config or AGENT_PROGRESS_CONFIG, or create the file`);
    layers.push(readLayer(file, true, warnings));
  } else {
    const file = path.join(cwd, CONFIG_FILE_NAME);
    if (fs.existsSync(file)) {
      const layer = readLayer(file, false, warnings);
      const refused = TRUSTED_ONLY_KEYS.filter((key) => fieldOf(layer.shape, key) !== undefined && fieldOf(layer.shape, key) !== null);
      if (refused.length > 0) {
        warnings.push(
          `${file} sets ${refused.join(', ')}, which a config file in the working folder may not set (a cloned repository could send your key or ledger elsewhere); ignored. ` +
            `To trust this file, pass --config ${file} or set AGENT_PROGRESS_CONFIG to it; or put these keys in ${userFile}.`,
        );
      }
      layers.push(layer);
    }
  }
  const configFile = layers.length > 0 ? layers[layers.length - 1]!.file : undefined;

  /** The value of `key` from the highest layer allowed to set it, ${VAR} expanded in trusted files only. */
  const fromFiles = (key: string): { value: string; file: string } | undefined => {
    const restricted = (TRUSTED_ONLY_KEYS as readonly string[]).includes(key);
    for (let i = layers.length - 1; i >= 0; i--) {
      const layer = layers[i]!;
      if (restricted && !layer.trusted) continue;
      const raw = stringField(fieldOf(layer.shape, key), key, layer.file);
      if (raw === undefined) continue;
      if (!layer.trusted) {
        if (/\$\{[^}]*\}/.test(raw)) {
          warnings.push(
            `${layer.file}: ${key} refers to an environment variable, which a config file in the working folder may not expand; ignored. Trust the file with --config or AGENT_PROGRESS_CONFIG.`,
          );
          continue;
        }
        return { value: raw, file: layer.file };
      }
      const expanded = expandVars(raw, env, `${layer.file}: ${key}`, warnings);
      if (expanded !== undefined) return { value: expanded, file: layer.file };
    }
    return undefined;
  };
  const nonEmpty = (v: string | undefined): string | undefined => (v !== undefined && v.trim() !== '' ? v : undefined);
  const fileValue = (key: string): string | undefined => nonEmpty(fromFiles(key)?.value);

  const envDb = nonEmpty(env.AGENT_PROGRESS_DB_PATH);
  const fileDb = fromFiles('dbPath');
  const dbPath = envDb
    ? resolveLedgerPath(envDb, cwd, 'AGENT_PROGRESS_DB_PATH')
    : fileDb && nonEmpty(fileDb.value)
      ? resolveLedgerPath(fileDb.value, path.dirname(fileDb.file), `${fileDb.file}: dbPath`)
      : defaultDbPath();

  // The environment's ledger wins over any file's: AGENT_PROGRESS_DB_PATH beats a file's databaseUrl.
  const envUrl = nonEmpty(env.AGENT_PROGRESS_DATABASE_URL);
  const fileUrl = envDb ? undefined : fromFiles('databaseUrl');
  const rawUrl = envUrl ?? nonEmpty(fileUrl?.value);
  const databaseUrl = rawUrl === undefined ? undefined : checkPostgresUrl(rawUrl, envUrl ? 'AGENT_PROGRESS_DATABASE_URL' : `${fileUrl!.file}: databaseUrl`);

  const model = nonEmpty(env.AGENT_PROGRESS_MODEL) ?? fileValue('openai.model') ?? DEFAULT_MODEL;
  if (model.trim() === '') throw invalidArgument('The summary model name must not be empty');
  const baseUrl = nonEmpty(env.OPENAI_BASE_URL) ?? fileValue('openai.baseUrl') ?? DEFAULT_BASE_URL;
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw invalidArgument(`OPENAI_BASE_URL must be an http(s) URL such as ${DEFAULT_BASE_URL}`);
  }
  const apiKey = nonEmpty(env.OPENAI_API_KEY) ?? fileValue('openai.apiKey');

  const rawLevel = nonEmpty(env.AGENT_PROGRESS_LOG_LEVEL) ?? fileValue('logging.level') ?? 'info';
  let logLevel: LogLevel = 'info';
  if (isLogLevel(rawLevel)) logLevel = rawLevel;
  else warnings.push(`log level "${rawLevel}" is not one of debug, info, warn, error; using info`);

  return { dbPath, databaseUrl, openai: { apiKey: apiKey?.trim(), baseUrl, model }, logLevel, configFile, warnings };
}
