// Secret redaction for everything the traces toolset shows: API keys and tokens by their shape,
// values of env-like assignments whose name says secret, bearer/basic headers, private key
// blocks, credentials in URLs. Transcripts keep secrets verbatim (no writer masks anything), so
// every preview, detail, title and search result passes through here.

export const REDACTED = '[REDACTED]';

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
  // Agent Progress's own agent keys.
  /\bapd_[A-Za-z0-9_-]{16,}/g,
  // JSON Web Tokens.
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

const PRIVATE_KEY = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g;
const AUTH_HEADER = /\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9._~+/=-]{8,}/g;
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/]+):([^\s@/]+)@/gi;

/**
 * NAME=value, NAME: value, "name": "value" where the name ends in a secret-ish word. The value runs
 * to whitespace, a quote or a comma. Names like input_tokens or max_tokens do not match (the word
 * must end the name, singular).
 */
const ASSIGNMENT =
  /(["']?)\b([A-Za-z0-9_.-]*?(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?|client[_-]?secret|session[_-]?key))\1(\s*[=:]\s*)(?:(["'])([^"'\n]+)|([^\s"'][^\s"']*))/gi;

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
  out = out.replace(AUTH_HEADER, (_m, kind: string, space: string) => `${kind}${space}${REDACTED}`);
  for (const shape of TOKEN_SHAPES) out = out.replace(shape, REDACTED);
  return redactAssignments(out);
}

const SECRET_KEY_NAME = /(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?|client[_-]?secret|session[_-]?key|authorization)$/i;

/** A deep copy with every string redacted, and the values of secret-named keys replaced. */
export function redactValue<T>(value: T): T {
  return redactInner(value, 0) as T;
}

function redactInner(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactText(value);
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactInner(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = typeof v === 'string' && v.length > 0 && SECRET_KEY_NAME.test(k) && !/^(\$|<)/.test(v) ? REDACTED : redactInner(v, depth + 1);
  }
  return out;
}
