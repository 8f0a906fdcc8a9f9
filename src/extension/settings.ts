// The extension's settings (agentProgress.*), read in one place with their defaults.

import * as vscode from 'vscode';
import { SETTINGS_SECTION, TOOLSETS, type Toolset } from './commandIds';

export { TOOLSETS, type Toolset } from './commandIds';

export interface Settings {
  toolsets: Toolset[];
  /** An absolute ledger path chosen by the user, or undefined for workspace storage. */
  ledgerPath: string | undefined;
  /** A PostgreSQL connection string: the team ledger, used instead of the file (takes effect after a reload). */
  databaseUrl: string | undefined;
  summaryBaseUrl: string | undefined;
  summaryModel: string | undefined;
  /** Who writes summaries: auto (the editor's model, else the endpoint), editor, endpoint, or none (an excerpt). */
  summaryProvider: SummaryProviderChoice;
  /** Entries older than this many days are archived or deleted by Archive or Delete Old Entries; 0: ask. */
  retentionDays: number;
  retentionAction: 'archive' | 'delete';
  /** How long the ledger host stays without clients before it exits (ms). */
  ledgerHostIdleMs: number;
}

export const SUMMARY_PROVIDERS = ['auto', 'editor', 'endpoint', 'none'] as const;
export type SummaryProviderChoice = (typeof SUMMARY_PROVIDERS)[number];

export const DEFAULT_HOST_IDLE_MS = 600_000;

/** A whole number of milliseconds from 1 s to a day; anything else is the default. */
function idleMs(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1_000 && value <= 86_400_000 ? value : DEFAULT_HOST_IDLE_MS;
}

export function readSettings(): Settings {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const raw = config.get<unknown>('toolsets', [...TOOLSETS]);
  const toolsets = (Array.isArray(raw) ? raw : []).filter((t): t is Toolset => (TOOLSETS as readonly string[]).includes(String(t)));
  const text = (key: string): string | undefined => {
    const v = config.get<string>(key, '');
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  const provider = config.get<string>('summary.provider', 'auto');
  const days = config.get<number>('retention.days', 0);
  return {
    toolsets: [...new Set(toolsets)],
    ledgerPath: text('ledgerPath'),
    databaseUrl: text('databaseUrl'),
    summaryBaseUrl: text('summary.baseUrl'),
    summaryModel: text('summary.model'),
    summaryProvider: (SUMMARY_PROVIDERS as readonly string[]).includes(provider) ? (provider as SummaryProviderChoice) : 'auto',
    retentionDays: typeof days === 'number' && Number.isInteger(days) && days > 0 ? days : 0,
    retentionAction: config.get<string>('retention.action', 'archive') === 'delete' ? 'delete' : 'archive',
    ledgerHostIdleMs: idleMs(config.get<number>('ledgerHostIdleMs', DEFAULT_HOST_IDLE_MS)),
  };
}

/** The agentProgress.sessionDigests.* settings, as core's DigestSettings. */
export interface DigestSettingsView {
  enabled: boolean;
  /** Whether the person chose (any scope): the first-run notice asks until they do. */
  chosen: boolean;
  idleMinutes: number;
  excludeProviders: string[];
  excludeFolders: string[];
}

export function readDigestSettings(): DigestSettingsView {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const inspected = config.inspect<boolean>('sessionDigests.enabled');
  const chosen = [inspected?.globalValue, inspected?.workspaceValue, inspected?.workspaceFolderValue].some((v) => typeof v === 'boolean');
  const idle = config.get<number>('sessionDigests.idleMinutes', 10);
  const list = (key: string): string[] => {
    const v = config.get<unknown>(key, []);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').slice(0, 200) : [];
  };
  return {
    enabled: config.get<boolean>('sessionDigests.enabled', false) === true,
    chosen,
    idleMinutes: typeof idle === 'number' && Number.isFinite(idle) && idle >= 0 ? Math.min(idle, 10_080) : 10,
    excludeProviders: list('sessionDigests.excludeProviders'),
    excludeFolders: list('sessionDigests.excludeFolders'),
  };
}

/** True when a configuration change touches any of our settings. */
export function affectsSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration(SETTINGS_SECTION);
}
