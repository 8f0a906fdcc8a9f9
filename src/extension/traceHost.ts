// The extension's handle on agent transcripts: core's TraceService (loaded on first use) over the
// folders the settings name (by default the agents' own, and this VS Code's user folder for
// Copilot Chat), kept fresh by an incremental rescan every few seconds while a view or a session
// page is showing, and announced to them when something changed. Reads through core, never MCP.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable } from './disposable';
import type { Logger } from '../core/log';
import type { TraceHomes } from '../core/traces/homes';
import type { TraceService } from '../core/traces/traceService';
import { SETTINGS_SECTION } from './commandIds';
import { loadCore } from './core';
import type { LedgerHost } from './ledgerHost';

const POLL_MS = 3_000;

/** The agentProgress.traces.* settings, by provider. */
export const TRACE_SETTINGS = {
  claude_code: 'traces.claudeHome',
  codex: 'traces.codexHome',
  gemini: 'traces.geminiHome',
  vscode_copilot: 'traces.vscodeUserDir',
} as const;

type ProviderKey = keyof typeof TRACE_SETTINGS;

export class TraceHost extends Disposable {
  private instance: TraceService | undefined;
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** Fires after a rescan found new or changed sessions, or the folders changed. */
  readonly onDidChange = this.changed.event;
  private watchers = 0;
  private timer: NodeJS.Timeout | undefined;
  private seenGeneration = -1;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly ledger: LedgerHost,
    private readonly logger: Logger,
  ) {
    super();
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration(`${SETTINGS_SECTION}.traces`) || !this.instance) return;
        this.instance.index.setHomes(this.homes());
        void this.poll();
      }),
    );
    this.register(() => {
      if (this.timer) clearInterval(this.timer);
      this.timer = undefined;
    });
  }

  /** The user folder of the VS Code running this extension (its Copilot Chat sessions). */
  get ownUserDir(): string {
    return path.dirname(path.dirname(this.context.globalStorageUri.fsPath));
  }

  private settings(): Record<ProviderKey, string | undefined> {
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const read = (key: string): string | undefined => {
      const v = config.get<string>(key, '');
      return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
    };
    return {
      claude_code: read(TRACE_SETTINGS.claude_code),
      codex: read(TRACE_SETTINGS.codex),
      gemini: read(TRACE_SETTINGS.gemini),
      vscode_copilot: read(TRACE_SETTINGS.vscode_copilot),
    };
  }

  /** Settings win; then the environment; for Copilot Chat, then this VS Code's own user folder. */
  homes(): TraceHomes {
    const core = loadCore();
    const overrides = this.settings();
    if (!overrides.vscode_copilot && !process.env[core.TRACE_ENV.vscode_copilot] && !process.env[core.TRACE_ENV.home]) overrides.vscode_copilot = this.ownUserDir;
    return core.resolveTraceHomes({ overrides });
  }

  /** What the MCP server of the traces toolset needs to read the same folders as the views. */
  serverEnv(): Record<string, string> {
    const env: Record<string, string> = {};
    const names: Record<ProviderKey, string> = {
      claude_code: 'AGENT_PROGRESS_CLAUDE_HOME',
      codex: 'AGENT_PROGRESS_CODEX_HOME',
      gemini: 'AGENT_PROGRESS_GEMINI_HOME',
      vscode_copilot: 'AGENT_PROGRESS_VSCODE_USER_DIR',
    };
    const settings = this.settings();
    for (const key of Object.keys(names) as ProviderKey[]) {
      const value = settings[key] ?? (key === 'vscode_copilot' && !process.env[names[key]] ? this.ownUserDir : undefined);
      if (value) env[names[key]] = value;
    }
    return env;
  }

  get service(): TraceService {
    this.instance ??= new (loadCore().TraceService)({
      homes: this.homes(),
      logger: this.logger,
      ledgerSources: async () => [
        loadCore().progressActivitySource(() => this.ledger.progress()),
        loadCore().workflowActivitySource(() => this.ledger.workflow()),
        loadCore().queueActivitySource(() => this.ledger.queue()),
      ],
      minRefreshMs: 500,
    });
    return this.instance;
  }

  get started(): boolean {
    return this.instance !== undefined;
  }

  /** Rescans now (incremental) and tells the views if anything changed. */
  async poll(force = true): Promise<void> {
    try {
      await this.service.refresh(force);
    } catch (err) {
      this.logger.warn(`Reading agent transcripts failed: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    const generation = this.service.index.generation;
    if (generation !== this.seenGeneration) {
      this.seenGeneration = generation;
      this.changed.fire();
    }
  }

  /** Keeps the index fresh while the returned disposable lives (a visible view, an open page). */
  watch(): vscode.Disposable {
    this.watchers++;
    if (!this.timer) {
      this.timer = setInterval(() => void this.poll(), POLL_MS);
      void this.poll(false);
    }
    let done = false;
    return new vscode.Disposable(() => {
      if (done) return;
      done = true;
      this.watchers--;
      if (this.watchers === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    });
  }
}
