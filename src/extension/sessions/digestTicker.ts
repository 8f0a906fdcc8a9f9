// Session digests in the editor: a periodic tick that digests this workspace's idle agent sessions
// (only while agentProgress.sessionDigests.enabled), a status-bar count of the sessions not yet
// digested, and the first-run notice that asks whether to turn digests on. Core does the work.

import * as vscode from 'vscode';
import type { DigestForce, DigestRun } from '../../core/digests/digestService';
import type { Logger } from '../../core/log';
import { CommandIds, SETTINGS_SECTION } from '../commandIds';
import type { LedgerConnection } from '../ledgerConnection';
import { StatusItem } from '../statusItem';
import { readDigestSettings } from '../settings';
import type { TraceHost } from '../traceHost';
import { pendingStatus, tickInterval } from './digestStatus';

const NOTICE_KEY = 'agentProgress.sessionDigests.noticeShown';

export class DigestTicker extends StatusItem {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<DigestRun | undefined> | undefined;
  /** The last run's outcome (tests read it). */
  last: DigestRun | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly host: LedgerConnection,
    private readonly traces: TraceHost,
    private readonly logger: Logger,
  ) {
    super('agentProgress.sessionDigests', 47, 'Agent Progress: sessions not yet digested', { command: CommandIds.digestSessions, title: 'Digest Sessions Now' });
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SETTINGS_SECTION}.sessionDigests`)) this.schedule(0);
      }),
    );
    this.register(() => {
      if (this.timer) clearTimeout(this.timer);
    });
  }

  private get workspace(): string | undefined {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    return folder?.scheme === 'file' ? folder.fsPath : undefined;
  }

  /** Starts ticking, and asks once per workspace whether to turn digests on. */
  start(): void {
    this.schedule(0);
    void this.firstRunNotice();
  }

  private schedule(delay: number): void {
    if (this.disposed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.tick().finally(() => this.schedule(tickInterval(readDigestSettings().idleMinutes)));
    }, delay);
  }

  /** One digest pass (one at a time); undefined when digests are off or there is no folder. */
  tick(force: DigestForce = 'none'): Promise<DigestRun | undefined> {
    if (this.running) return force === 'none' ? this.running : this.running.then(() => this.tick(force));
    this.running = this.pass(force).finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(force: DigestForce): Promise<DigestRun | undefined> {
    const settings = readDigestSettings();
    const workspace = this.workspace;
    if (!settings.enabled || !workspace) {
      this.show(undefined);
      return undefined;
    }
    try {
      const digests = await this.host.digests(workspace, settings, () => Promise.resolve(this.traces.service));
      const run = await digests.run({ force });
      this.last = run;
      for (const w of run.written) this.logger.info(`Session digest ${w.entryId} written for ${w.provider} session ${w.sessionId}`);
      this.show(run.policy.enabled ? pendingStatus(run) : undefined);
      return run;
    } catch (err) {
      this.logger.warn(`Session digests failed: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  private async firstRunNotice(): Promise<void> {
    const settings = readDigestSettings();
    if (settings.chosen || !this.workspace || this.context.workspaceState.get<boolean>(NOTICE_KEY)) return;
    await this.context.workspaceState.update(NOTICE_KEY, true);
    const answer = await vscode.window.showInformationMessage(
      'Agent Progress can record a digest of each agent session in this workspace (Claude Code, Codex, Gemini CLI, Copilot Chat) in the progress log, even when the agent forgets to log. Digests are read from the transcripts on this machine, with secrets redacted, and stay in your ledger.',
      'Turn On',
      'Not for This Workspace',
    );
    if (answer === undefined) return;
    await vscode.workspace.getConfiguration(SETTINGS_SECTION).update('sessionDigests.enabled', answer === 'Turn On', vscode.ConfigurationTarget.Workspace);
  }
}
