// Where each agent keeps its transcripts: the real defaults per platform, overridden by
// environment variables (the server, the CLI, tests) or by the extension's settings.

import * as os from 'node:os';
import * as path from 'node:path';
import { PROVIDERS, type Provider } from './types';

export interface TraceHomes {
  claude_code: string[];
  codex: string[];
  gemini: string[];
  /** VS Code user folders (the one that holds workspaceStorage/ and globalStorage/). */
  vscode_copilot: string[];
}

export const TRACE_ENV = {
  home: 'AGENT_PROGRESS_TRACES_HOME',
  providers: 'AGENT_PROGRESS_TRACES_PROVIDERS',
  claude_code: 'AGENT_PROGRESS_CLAUDE_HOME',
  codex: 'AGENT_PROGRESS_CODEX_HOME',
  gemini: 'AGENT_PROGRESS_GEMINI_HOME',
  vscode_copilot: 'AGENT_PROGRESS_VSCODE_USER_DIR',
} as const;

type Env = Record<string, string | undefined>;

function list(value: string | undefined, home: string): string[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  return value
    .split(/[,;\n]/)
    .map((v) => v.trim())
    .filter(Boolean)
    .map((v) => (v === '~' || v.startsWith('~/') || v.startsWith('~\\') ? path.join(home, v.slice(1)) : path.resolve(v)));
}

function vscodeDefaults(home: string, platform: NodeJS.Platform, env: Env, fakeHome: boolean): string[] {
  const flavours = ['Code', 'Code - Insiders', 'VSCodium'];
  if (platform === 'darwin') return flavours.map((f) => path.join(home, 'Library', 'Application Support', f, 'User'));
  if (platform === 'win32') {
    const appData = (!fakeHome && env.APPDATA) || path.join(home, 'AppData', 'Roaming');
    return flavours.map((f) => path.join(appData, f, 'User'));
  }
  const config = (!fakeHome && env.XDG_CONFIG_HOME) || path.join(home, '.config');
  return [...flavours.map((f) => path.join(config, f, 'User')), path.join(home, '.vscode-server', 'data', 'User')];
}

export interface ResolveHomesOptions {
  env?: Env;
  platform?: NodeJS.Platform;
  /** Settings from the extension (comma-separated paths), which win over the environment. */
  overrides?: Partial<Record<Provider, string | undefined>>;
}

/**
 * The folders to scan per provider. Precedence: overrides, then AGENT_PROGRESS_<X>_HOME, then the
 * agent's own variable (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME), then the default under
 * $HOME (AGENT_PROGRESS_TRACES_HOME replaces $HOME for every default: tests point it at fixtures).
 */
export function resolveTraceHomes(options: ResolveHomesOptions = {}): TraceHomes {
  const env = options.env ?? process.env;
  const fakeHome = Boolean(env[TRACE_ENV.home]?.trim());
  const home = fakeHome ? path.resolve(env[TRACE_ENV.home]!.trim()) : os.homedir();
  const pick = (provider: Provider, own: string[] | undefined, defaults: string[]): string[] =>
    list(options.overrides?.[provider], home) ?? list(env[TRACE_ENV[provider]], home) ?? own ?? defaults;
  const homes: TraceHomes = {
    claude_code: pick('claude_code', fakeHome ? undefined : list(env.CLAUDE_CONFIG_DIR, home), [path.join(home, '.claude'), path.join(home, '.config', 'claude')]),
    codex: pick('codex', fakeHome ? undefined : list(env.CODEX_HOME, home), [path.join(home, '.codex')]),
    gemini: pick('gemini', fakeHome ? undefined : list(env.GEMINI_CLI_HOME, home)?.map((h) => path.join(h, '.gemini')), [path.join(home, '.gemini')]),
    vscode_copilot: pick('vscode_copilot', undefined, vscodeDefaults(home, options.platform ?? process.platform, env, fakeHome)),
  };
  const only = env[TRACE_ENV.providers]
    ?.split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (only && only.length > 0) for (const p of PROVIDERS) if (!only.includes(p)) homes[p] = [];
  return homes;
}
