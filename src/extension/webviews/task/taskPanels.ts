// Task webviews: one panel per queue task, showing its instructions, variables, the lease left and
// every attempt, with Requeue and Cancel for a person; live when any process changes the ledger.

import * as vscode from 'vscode';
import { isLedgerError } from '../../../core/errors';
import type { Logger } from '../../../core/log';
import type { HostToTask, TaskPageView } from '../../../shared/taskProtocol';
import { loadCore } from '../../core';
import type { LedgerConnection } from '../../ledgerConnection';
import { webviewHtml, webviewOptions } from '../webviewHtml';

export const TASK_VIEW_TYPE = 'agentProgress.task';

interface OpenPanel {
  panel: vscode.WebviewPanel;
  view: TaskPageView | undefined;
  busy: boolean;
  error: string | undefined;
}

export function taskTitle(instructions: string, id: string): string {
  const line = (instructions.split('\n').find((l) => l.trim() !== '') ?? '').trim();
  if (line === '') return `Task ${id}`;
  return line.length > 50 ? `${line.slice(0, 49)}…` : line;
}

export class TaskPanels implements vscode.Disposable {
  private readonly open = new Map<string, OpenPanel>();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: LedgerConnection,
    private readonly logger: Logger,
  ) {
    this.subscription = host.onDidChange(() => {
      for (const [id, state] of this.open) if (!state.busy) void this.reload(id, state);
    });
  }

  /** The panels open now, by task id (tests look at them). */
  get openIds(): string[] {
    return [...this.open.keys()];
  }

  private async load(id: string): Promise<TaskPageView> {
    const queue = await this.host.queue();
    const task = await queue.getTask({ taskId: id });
    const [types, project] = await Promise.all([queue.listTaskTypes({ projectId: task.projectId }), queue.getProject({ projectId: task.projectId })]);
    const type = types.find((t) => t.id === task.typeId);
    return { task, typeName: type?.name || '(default)', projectClosed: project.status === 'closed' };
  }

  async show(id: string): Promise<void> {
    let view: TaskPageView;
    try {
      view = await this.load(id);
    } catch (err) {
      void vscode.window.showErrorMessage(isLedgerError(err) ? err.message : `Could not open task ${id}: ${String(err)}`);
      return;
    }
    let state = this.open.get(view.task.id);
    if (state) {
      state.panel.reveal();
    } else {
      const title = taskTitle(view.task.instructions, view.task.id);
      const panel = vscode.window.createWebviewPanel(TASK_VIEW_TYPE, title, vscode.ViewColumn.Active, webviewOptions(this.extensionUri));
      panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.svg');
      panel.webview.html = webviewHtml({
        webview: panel.webview,
        extensionUri: this.extensionUri,
        title,
        script: ['dist', 'webview', 'task.js'],
        styles: [['media', 'task.css']],
      });
      state = { panel, view, busy: false, error: undefined };
      const current = state;
      const taskId = view.task.id;
      this.open.set(taskId, current);
      panel.onDidDispose(() => this.open.delete(taskId));
      panel.webview.onDidReceiveMessage((raw: unknown) => this.onMessage(taskId, current, raw));
    }
    state.view = view;
    this.post(state);
  }

  private async onMessage(id: string, state: OpenPanel, raw: unknown): Promise<void> {
    const parsed = loadCore().taskToHost.safeParse(raw);
    if (!parsed.success) {
      this.logger.warn(`Ignored a malformed message from the task view of ${id}`);
      return;
    }
    switch (parsed.data.type) {
      case 'ready':
        this.post(state);
        return;
      case 'copyId':
        await vscode.env.clipboard.writeText(id);
        void vscode.window.setStatusBarMessage(`Copied task id ${id}`, 2000);
        return;
      case 'requeue':
      case 'cancel':
        await this.act(id, state, parsed.data.type);
        return;
    }
  }

  private async act(id: string, state: OpenPanel, action: 'requeue' | 'cancel'): Promise<void> {
    if (state.busy) return;
    if (action === 'cancel') {
      const pick = await vscode.window.showWarningMessage(`Cancel this task? No agent will be given it again.`, { modal: true, detail: state.view ? taskTitle(state.view.task.instructions, id) : id }, 'Cancel Task');
      if (pick !== 'Cancel Task') return;
    }
    state.busy = true;
    state.error = undefined;
    this.post(state);
    try {
      const queue = await this.host.queue();
      const actor = { kind: 'operator' as const, name: 'editor' };
      if (action === 'requeue') await queue.requeueTask(id, actor);
      else await queue.cancelTask(id, actor);
      state.view = await this.load(id);
    } catch (err) {
      state.error = isLedgerError(err) ? err.message : String(err);
    } finally {
      state.busy = false;
      this.post(state);
    }
  }

  private async reload(id: string, state: OpenPanel): Promise<void> {
    try {
      state.view = await this.load(id);
      this.post(state);
    } catch (err) {
      if (isLedgerError(err) && err.code === 'not_found') {
        const message: HostToTask = { type: 'missing', id, message: `Task ${id} is no longer in the ledger.` };
        void state.panel.webview.postMessage(message);
      }
    }
  }

  private post(state: OpenPanel): void {
    if (!state.view) return;
    state.panel.title = taskTitle(state.view.task.instructions, state.view.task.id);
    const message: HostToTask = { type: 'task', view: state.view, busy: state.busy, ...(state.error ? { error: state.error } : {}) };
    void state.panel.webview.postMessage(message);
  }

  dispose(): void {
    this.subscription.dispose();
    for (const state of this.open.values()) state.panel.dispose();
    this.open.clear();
  }
}
