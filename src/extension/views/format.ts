// Pure formatting for views: relative times and short dates. No vscode import, so unit-testable.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function relativeTime(iso: string, now: Date): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const ago = now.getTime() - then;
  if (ago < 45_000) return 'just now';
  if (ago < HOUR) return `${Math.max(1, Math.round(ago / MINUTE))}m ago`;
  if (ago < DAY) return `${Math.round(ago / HOUR)}h ago`;
  if (ago < 7 * DAY) return `${Math.round(ago / DAY)}d ago`;
  return shortDate(iso, now);
}

export function shortDate(iso: string, now: Date): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const base = `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
  return d.getUTCFullYear() === now.getUTCFullYear() ? base : `${base}, ${d.getUTCFullYear()}`;
}

/** "2025-06-15 14:32 UTC" */
export function exactTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
