// Connection strings of the PostgreSQL backend: recognising one, and redacting its password so
// that no log line, error or status ever shows it. Pure string work; opens nothing.

import { invalidArgument } from '../../errors';

/** True when a ledger location is a PostgreSQL connection string rather than a file path. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value.trim());
}

/** The URL with its password (and any password= parameter) replaced by [redacted]; any scheme, so a mistyped one is redacted too. */
export function redactUrl(url: string): string {
  return url.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/gi, '$1[redacted]@').replace(/([?&]password=)[^&\s]*/gi, '$1[redacted]');
}

/** The password of a connection string, to register with the logger as a secret. */
export function urlPassword(url: string): string | undefined {
  try {
    const u = new URL(url);
    const fromParam = u.searchParams.get('password');
    const pw = fromParam ?? (u.password ? decodeURIComponent(u.password) : '');
    return pw.length > 0 ? pw : undefined;
  } catch {
    return undefined;
  }
}

/** Checks that a connection string parses; throws invalid_argument (redacted) otherwise. */
export function checkPostgresUrl(url: string, source: string): string {
  const trimmed = url.trim();
  if (!isPostgresUrl(trimmed)) {
    throw invalidArgument(`${source} must be a PostgreSQL connection string such as postgres://user:password@host:5432/agent_progress (got ${JSON.stringify(redactUrl(trimmed))})`);
  }
  try {
    new URL(trimmed);
  } catch {
    throw invalidArgument(`${source} is not a valid URL (${redactUrl(trimmed)}): percent-encode special characters in the user name and password`);
  }
  return trimmed;
}
