// Leveled logging to a sink (stderr for the server and CLI, an output channel in the extension).
// Every line passes through redaction first: registered secrets and anything shaped like a key.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** Adds a value that must never appear in output (an API key, a bearer token). */
  addSecret(secret: string | undefined): void;
  /** Logs once per key for the lifetime of this logger. */
  once(key: string, level: LogLevel, message: string): void;
}

const KEY_SHAPES: RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}/gi,
  /\bapd_[A-Za-z0-9_-]{16,}/g,
];

export function isLogLevel(value: string): value is LogLevel {
  return value in ORDER;
}

export function redact(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  for (const shape of KEY_SHAPES) out = out.replace(shape, '[redacted]');
  return out;
}

export function createLogger(options: { level?: LogLevel; sink?: (line: string) => void; clock?: () => Date } = {}): Logger {
  const threshold = ORDER[options.level ?? 'info'];
  const sink = options.sink ?? ((line: string) => process.stderr.write(line + '\n'));
  const clock = options.clock ?? (() => new Date());
  const secrets = new Set<string>();
  const said = new Set<string>();
  const write = (level: LogLevel, message: string): void => {
    if (ORDER[level] < threshold) return;
    sink(`${clock().toISOString()} [${level}] ${redact(message, secrets)}`);
  };
  return {
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
    addSecret: (secret) => {
      if (secret && secret.trim().length >= 4) secrets.add(secret.trim());
    },
    once: (key, level, message) => {
      if (said.has(key)) return;
      said.add(key);
      write(level, message);
    },
  };
}

export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  addSecret: () => undefined,
  once: () => undefined,
};
