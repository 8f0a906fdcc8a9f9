// Leveled logging to a sink (stderr for the server and CLI, an output channel in the extension).
// Every line passes through redaction first: registered secrets and anything shaped like a key.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Correlation fields of a log line (task, project, agent, session ids), kept apart in JSON logs. */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** Adds a value that must never appear in output (an API key, a bearer token). */
  addSecret(secret: string | undefined): void;
  /** Logs once per key for the lifetime of this logger. */
  once(key: string, level: LogLevel, message: string): void;
}

const KEY_SHAPES: RegExp[] = [/\bsk-[A-Za-z0-9_-]{16,}/g, /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}/gi, /\bapk_[A-Za-z0-9_-]{16,}/g];

export function isLogLevel(value: string): value is LogLevel {
  return value in ORDER;
}

export function redact(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  for (const shape of KEY_SHAPES) out = out.replace(shape, '[redacted]');
  // The password of a URL such as a database connection string (postgres://user:password@host/db).
  out = out.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/gi, '$1[redacted]@');
  return out;
}

export type LogFormat = 'text' | 'json';

export function createLogger(options: { level?: LogLevel; sink?: (line: string) => void; clock?: () => Date; format?: LogFormat } = {}): Logger {
  const threshold = ORDER[options.level ?? 'info'];
  const sink = options.sink ?? ((line: string) => process.stderr.write(line + '\n'));
  const clock = options.clock ?? (() => new Date());
  const json = options.format === 'json';
  const secrets = new Set<string>();
  const write = (level: LogLevel, message: string, fields?: LogFields): void => {
    if (ORDER[level] < threshold) return;
    const defined = Object.entries(fields ?? {}).filter(([, v]) => v !== undefined && v !== null);
    if (json) {
      const line: Record<string, unknown> = { time: clock().toISOString(), level, msg: message };
      for (const [k, v] of defined) line[k] = v;
      sink(redact(JSON.stringify(line), secrets));
      return;
    }
    const suffix = defined.length > 0 ? ` ${defined.map(([k, v]) => `${k}=${String(v)}`).join(' ')}` : '';
    sink(`${clock().toISOString()} [${level}] ${redact(message + suffix, secrets)}`);
  };
  return loggerOver(write, secrets);
}

/**
 * A Logger over one write function that redacts with `secrets`: the four levels, addSecret (values
 * of four characters or more) and once. createLogger's stderr log and the extension's output
 * channel differ only in their write.
 */
export function loggerOver(write: (level: LogLevel, message: string, fields?: LogFields) => void, secrets: Set<string>): Logger {
  const said = new Set<string>();
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
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
