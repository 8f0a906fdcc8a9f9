// Secret redaction for everything the traces toolset shows: API keys and tokens by their shape,
// values of env-like assignments whose name says secret, bearer/basic headers, private key
// blocks, credentials in URLs. Transcripts keep secrets verbatim (no writer masks anything), so
// every preview, detail, title and search result passes through here.

export const REDACTED = '[REDACTED]';

/**
 * Every pattern here runs in time linear in the text (transcripts are untrusted and can be large):
 * a pattern that may start at many places in one run of characters either starts only where the
 * run starts (a lookbehind for the run's class) or scans a bounded number of characters from each
 * start, so no start rescans the rest of the text. test/unit/core/traces/redact.test.ts checks it
 * on adversarial inputs.
 */

/** Token shapes that are secrets wherever they appear. */
const TOKEN_SHAPES: RegExp[] = [
  // OpenAI / Anthropic / generic "sk-" keys, Stripe sk_/rk_/pk_live keys.
  /\bsk-(?:ant-|proj-|test-|live-)?[A-Za-z0-9_-]{16,}/g,
  /\b(?:sk|rk)_(?:test|live)_[A-Za-z0-9]{10,}/g,
  /\bpk_live_[A-Za-z0-9]{10,}/g,
  // GitHub, GitLab, Slack, npm, Hugging Face, Google, AWS access key ids.
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{30,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bnpm_[A-Za-z0-9]{30,}/g,
  /\bhf_[A-Za-z0-9]{30,}/g,
  /\bAIza[0-9A-Za-z_-]{35}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  // Google OAuth access tokens.
  /\bya29\.[0-9A-Za-z_-]{20,}/g,
  // Slack incoming webhooks (the path is the credential).
  /\bhooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{8,}/g,
  // Agent Progress's own keys: the queue's agent API keys (src/core/queue/apiKeys.ts) and agent keys.
  /\bapk_[A-Za-z0-9_-]{16,}/g,
  /\bapd_[A-Za-z0-9_-]{16,}/g,
];

/**
 * JSON Web Tokens: a base64url JSON header ({" is eyJ, { " is eyAi, {\n is ewo...) and payload,
 * starting only where a run of base64url characters starts (the character before is captured),
 * so a long run of dashed words is scanned once, not once per "ey" in it.
 */
const JWT = /(^|[^A-Za-z0-9_-])(?:eyJ|eyA|ew)[A-Za-z0-9_-]{8,}\.(?:eyJ|eyA|ew)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g;

const PRIVATE_KEY = /-----BEGIN ([A-Z0-9 ]{0,40})PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$)/g;
/** Bearer in any case (RFC 7235 schemes are case-insensitive); Basic and Token as written. */
const BEARER = /\b(bearer)(\s{1,16})[A-Za-z0-9._~+/=-]{8,}/gi;
const AUTH_HEADER = /\b(Basic|Token)(\s{1,16})[A-Za-z0-9._~+/=-]{8,}/g;
/** scheme://user:password@ where the password may hold @ and / (it runs to the last @ within 512 characters). */
const URL_CREDENTIALS = /(?<![A-Za-z0-9+.-])([a-z][a-z0-9+.-]{0,31}:\/\/)([^\s:@/"'<>]{1,256}):([^\s"'<>]{0,512})@/gi;
/** Azure storage and service bus connection strings. */
const AZURE_KEY = /\b((?:Account|SharedAccess)Key\s{0,4}=\s{0,4})[^;\s"']{4,}/gi;
/** curl -u user:password, --user user:password. */
const CURL_USER = /(?<![A-Za-z0-9_-])(-u|--user)(\s{1,16}|=)(["']?)([^\s:"']{1,256}):[^\s"']{1,512}/g;
/** --password X, --db-pass X, --api-key X: a flag naming a secret, then its value after a space. */
const SECRET_FLAG =
  /(?<![A-Za-z0-9_-])(--?(?:[A-Za-z0-9]{1,32}[-_]){0,4}(?:password|passwd|passphrase|pass|pwd|secret|token|api[-_]?key|secret[-_]?key|access[-_]?key|private[-_]?key|client[-_]?secret)\s{1,16})(?:"[^"\n]{1,512}"|'[^'\n]{1,512}'|[^\s"'-][^\s"']{0,511})/gi;

/** The words that make a name secret when the name ends with one. */
const SECRET_WORDS =
  'password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|auth[_-]?key|account[_-]?key|credentials?|client[_-]?secret|session[_-]?key|(?<![a-z0-9])(?:pass|pwd)';

/**
 * NAME=value, NAME: value, "name": "value" where the name ends in a secret-ish word. The value runs
 * to whitespace or a quote. Names like input_tokens or max_tokens do not match (the word must end
 * the name, singular); DB_PASS and MYSQL_PWD do, compass and bypass do not.
 */
const ASSIGNMENT = new RegExp(`(["']?)(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]*?(?:${SECRET_WORDS}))\\1(\\s{0,16}[=:]\\s{0,16})(?:(["'])([^"'\\n]+)|([^\\s"'][^\\s"']*))`, 'gi');

function isPlaceholder(value: string): boolean {
  // References and non-secrets: $VAR, ${VAR}, <...>, already redacted, booleans, short numbers.
  return value.startsWith(REDACTED) || /^(\$|<|%)/.test(value) || /^(true|false|null|none|undefined)[,;}]*$/i.test(value) || /^\d{1,5}[,;}]*$/.test(value);
}

function redactAssignments(text: string): string {
  return text.replace(ASSIGNMENT, (whole, q1: string, name: string, sep: string, quote: string | undefined, quoted: string | undefined, bare: string | undefined) => {
    const value = quoted ?? bare ?? '';
    if (isPlaceholder(value)) return whole;
    return quote ? `${q1}${name}${q1}${sep}${quote}${REDACTED}` : `${q1}${name}${q1}${sep}${REDACTED}`;
  });
}

/** The text with every secret replaced by [REDACTED]. */
export function redactText(text: string): string {
  if (text.length === 0) return text;
  let out = text.replace(PRIVATE_KEY, REDACTED);
  out = out.replace(URL_CREDENTIALS, (_m, scheme: string, user: string) => `${scheme}${user}:${REDACTED}@`);
  out = out.replace(CURL_USER, (_m, flag: string, sep: string, quote: string, user: string) => `${flag}${sep}${quote}${user}:${REDACTED}`);
  out = out.replace(BEARER, (_m, kind: string, space: string) => `${kind}${space}${REDACTED}`);
  out = out.replace(AUTH_HEADER, (_m, kind: string, space: string) => `${kind}${space}${REDACTED}`);
  out = out.replace(AZURE_KEY, (_m, name: string) => `${name}${REDACTED}`);
  for (const shape of TOKEN_SHAPES) out = out.replace(shape, REDACTED);
  out = out.replace(JWT, (_m, before: string) => `${before}${REDACTED}`);
  out = out.replace(SECRET_FLAG, (whole, flag: string) => (whole.slice(flag.length).startsWith(REDACTED) ? whole : `${flag}${REDACTED}`));
  return redactAssignments(out);
}

const SECRET_KEY_NAME = new RegExp(`(?:${SECRET_WORDS}|authorization)$`, 'i');

/** Deeper than this, a value is replaced whole: nothing a transcript nests passes unread. */
export const MAX_DEPTH = 64;

/** A deep copy with every string redacted, and the values of secret-named keys replaced. */
export function redactValue<T>(value: T): T {
  return redactInner(value, 0) as T;
}

function redactInner(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return `${REDACTED} (nested deeper than ${MAX_DEPTH} levels)`;
  if (Array.isArray(value)) return value.map((v) => redactInner(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = typeof v === 'string' && v.length > 0 && SECRET_KEY_NAME.test(k) && !/^(\$|<)/.test(v) ? REDACTED : redactInner(v, depth + 1);
  }
  return out;
}
