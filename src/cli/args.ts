// A small argv parser for the CLI: --flag value, --flag=value, repeatable flags, booleans and
// positionals, with errors that name the offending flag.

export class UsageError extends Error {}

export interface FlagSpec {
  /** Takes a value; otherwise a boolean switch. */
  value?: boolean;
  /** May be given several times (values collected in order). */
  repeat?: boolean;
  alias?: string;
}

export interface Parsed {
  flags: Map<string, string[] | true>;
  positionals: string[];
}

/** A single dash and then at least 8 id characters: an entry or task id, never one of our options. */
const ID_LIKE = /^-[A-Za-z0-9_-]{8,}$/;

export function parseArgv(argv: readonly string[], spec: Record<string, FlagSpec>): Parsed {
  const flags = new Map<string, string[] | true>();
  const positionals: string[] = [];
  const aliases = new Map<string, string>();
  for (const [name, s] of Object.entries(spec)) if (s.alias) aliases.set(s.alias, name);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const rawName = arg.startsWith('--') ? arg.slice(2, eq > 0 ? eq : undefined) : arg.slice(1);
    const name = aliases.get(rawName) ?? rawName;
    const s = spec[name];
    if (!s) {
      // An id that starts with "-" (nanoid's alphabet has it) is a positional, not an option.
      if (!arg.startsWith('--') && ID_LIKE.test(arg)) {
        positionals.push(arg);
        continue;
      }
      throw new UsageError(`Unknown option ${arg.slice(0, eq > 0 ? eq : undefined)}`);
    }
    if (!s.value) {
      if (eq > 0) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
      continue;
    }
    const v = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (v === undefined) throw new UsageError(`--${name} needs a value`);
    const prev = flags.get(name);
    if (prev && prev !== true && !s.repeat) throw new UsageError(`--${name} was given twice`);
    flags.set(name, prev && prev !== true ? [...prev, v] : [v]);
  }
  return { flags, positionals };
}

export function flagValue(p: Parsed, name: string): string | undefined {
  const v = p.flags.get(name);
  return v === undefined || v === true ? undefined : v[v.length - 1];
}

export function flagValues(p: Parsed, name: string): string[] {
  const v = p.flags.get(name);
  return v === undefined || v === true ? [] : v;
}

export function flagSet(p: Parsed, name: string): boolean {
  return p.flags.get(name) === true;
}
