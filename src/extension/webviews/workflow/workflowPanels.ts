// Workflow webviews: one panel per workflow with its plan, its tasks and their files changed,
// progress and a timeline, updated live when any process writes the ledger. A file's button
// opens its diff; a task can be brought into view (from a tree item or a notification).

import * as vscode from 'vscode';
import { isLedgerError } from '../../../core/errors';
import type { Logger } from '../../../core/log';
import type { HostToWorkflow, WorkflowPage } from '../../../shared/workflowProtocol';
import { CommandIds } from '../../commandIds';
import { loadCore } from '../../core';
import type { LedgerConnection } from '../../ledgerConnection';
import { fileChanges } from '../../views/workflows/workflowItems';
import { webviewHtml, webviewOptions } from '../webviewHtml';
import { toWorkflowPage } from './workflowPage';

export const WORKFLOW_VIEW_TYPE = 'agentProgress.workflow';

interface OpenPanel {
  panel: vscode.WebviewPanel;
  page: WorkflowPage | undefined;
  focusTaskId: string | undefined;
}

export class WorkflowPanels implements vscode.Disposable {
  private readonly open = new Map<string, OpenPanel>();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: LedgerConnection,
    private readonly logger: Logger,
  ) {
    this.subscription = host.onDidChange(() => {
      for (const [id, state] of this.open) void this.reload(id, state);
    });
  }

  /** The panels open now, by workflow id (tests look at them). */
  get openIds(): string[] {
    return [...this.open.keys()];
  }

  /** The page a panel shows now (tests look at it). */
  pageOf(workflowId: string): WorkflowPage | undefined {
    return this.open.get(workflowId)?.page;
  }

  async show(workflowId: string, focusTaskId?: string): Promise<void> {
    let page: WorkflowPage;
    try {
      page = toWorkflowPage(await (await this.host.workflow()).workflowDetail(workflowId));
    } catch (err) {
      void vscode.window.showErrorMessage(isLedgerError(err) ? err.message : `Could not open workflow ${workflowId}: ${String(err)}`);
      return;
    }
    let state = this.open.get(workflowId);
    if (state) {
      state.panel.reveal();
    } else {
      const panel = vscode.window.createWebviewPanel(WORKFLOW_VIEW_TYPE, page.name, vscode.ViewColumn.Active, { ...webviewOptions(this.extensionUri), retainContextWhenHidden: false });
      panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.svg');
      panel.webview.html = webviewHtml({
        webview: panel.webview,
        extensionUri: this.extensionUri,
        title: page.name,
        script: ['dist', 'webview', 'workflow.js'],
        styles: [['media', 'workflow.css']],
      });
      state = { panel, page, focusTaskId };
      const current = state;
      this.open.set(workflowId, current);
      panel.onDidDispose(() => this.open.delete(workflowId));
      panel.webview.onDidReceiveMessage((raw: unknown) => this.onMessage(workflowId, current, raw));
    }
    state.page = page;
    state.focusTaskId = focusTaskId;
    this.post(state);
  }

  private async onMessage(workflowId: string, state: OpenPanel, raw: unknown): Promise<void> {
    const parsed = loadCore().workflowToHost.safeParse(raw);
    if (!parsed.success) {
      this.logger.warn(`Ignored a malformed message from the workflow view of ${workflowId}`);
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'ready':
        this.post(state);
        return;
      case 'openFile': {
        try {
          const task = await (await this.host.workflow()).task(message.taskId);
          const file = fileChanges(task).find((f) => f.path === message.path);
          if (file) await vscode.commands.executeCommand(CommandIds.openFileChange, file);
        } catch (err) {
          void vscode.window.showErrorMessage(isLedgerError(err) ? err.message : String(err));
        }
        return;
      }
      case 'copyId':
        await vscode.env.clipboard.writeText(message.id);
        void vscode.window.setStatusBarMessage(`Copied ${message.id}`, 2000);
        return;
    }
  }

  private async reload(workflowId: string, state: OpenPanel): Promise<void> {
    try {
      state.page = toWorkflowPage(await (await this.host.workflow()).workflowDetail(workflowId));
      // A live update keeps the reader where they are: no new focus.
      state.focusTaskId = undefined;
      this.post(state);
    } catch (err) {
      if (isLedgerError(err) && err.code === 'not_found') {
        const message: HostToWorkflow = { type: 'missing', id: workflowId, message: `Workflow ${workflowId} is no longer in the ledger.` };
        void state.panel.webview.postMessage(message);
      }
    }
  }

  private post(state: OpenPanel): void {
    if (!state.page) return;
    state.panel.title = state.page.name;
    const message: HostToWorkflow = { type: 'workflow', page: state.page, ...(state.focusTaskId ? { focusTaskId: state.focusTaskId } : {}) };
    void state.panel.webview.postMessage(message);
  }

  dispose(): void {
    this.subscription.dispose();
    for (const state of this.open.values()) state.panel.dispose();
    this.open.clear();
  }
}
