// The extension's settings (agentProgress.*), read in one place with their defaults.

import * as vscode from 'vscode';
import { SETTINGS_SECTION, TOOLSETS, type Toolset } from './commandIds';

export { TOOLSETS, type Toolset } from './commandIds';

export interface Settings {
  toolsets: Toolset[];
  /** An absolute ledger path chosen by the user, or undefined for workspace storage. */
  ledgerPath: string | undefined;
  summaryBaseUrl: string | undefined;
  summaryModel: string | undefined;
}

export function readSettings(): Settings {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const raw = config.get<unknown>('toolsets', [...TOOLSETS]);
  const toolsets = (Array.isArray(raw) ? raw : []).filter((t): t is Toolset => (TOOLSETS as readonly string[]).includes(String(t)));
  const text = (key: string): string | undefined => {
    const v = config.get<string>(key, '');
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  return { toolsets: [...new Set(toolsets)], ledgerPath: text('ledgerPath'), summaryBaseUrl: text('summary.baseUrl'), summaryModel: text('summary.model') };
}

/** True when a configuration change touches any of our settings. */
export function affectsSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration(SETTINGS_SECTION);
}
