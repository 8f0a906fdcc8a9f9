// Workflow webviews: one panel per workflow with its plan, its tasks and their files changed,
// progress and a timeline, updated live when any process writes the ledger. A file's button
// opens its diff; a task can be brought into view (from a tree item or a notification).

import * as vscode from 'vscode';
import { isLedgerError } from '../../core/errors';
import type { Logger } from '../../core/log';
import type { HostToWorkflow, WorkflowPage, WorkflowToHost } from '../../shared/workflowProtocol';
import { CommandIds } from '../commandIds';
import { loadCore } from '../core';
import { Disposable } from '../disposable';
import type { LedgerConnection } from '../ledgerConnection';
import { fileChanges } from './workflowItems';
import { copyId, ledgerMissing, Pages } from '../webviews/pages';
import { toWorkflowPage } from './workflowPage';

export const WORKFLOW_VIEW_TYPE = 'agentProgress.workflow';

export type WorkflowPages = Pages<WorkflowPage, HostToWorkflow, WorkflowToHost>;

export class WorkflowPanels extends Disposable {
  readonly pages: WorkflowPages;

  constructor(extensionUri: vscode.Uri, host: LedgerConnection, logger: Logger) {
    super();
    this.pages = this.register(
      new Pages(extensionUri, logger, {
        viewType: WORKFLOW_VIEW_TYPE,
        name: 'workflow',
        onDidChange: host.onDidChange,
        load: async (workflowId) => toWorkflowPage(await (await host.workflow()).workflowDetail(workflowId)),
        keyOf: (page) => page.id,
        title: (page) => page.name,
        render: (page) => ({ type: 'workflow', page: page.model!, ...(typeof page.focus === 'string' ? { focusTaskId: page.focus } : {}) }),
        missing: ledgerMissing<HostToWorkflow>((id, message) => ({ type: 'missing', id, message }), 'Workflow'),
        parse: (raw) => loadCore().workflowToHost.safeParse(raw),
        handle: async (_page, message) => {
          switch (message.type) {
            case 'openFile': {
              try {
                const task = await (await host.workflow()).task(message.taskId);
                const file = fileChanges(task).find((f) => f.path === message.path);
                if (file) await vscode.commands.executeCommand(CommandIds.openFileChange, file);
              } catch (err) {
                void vscode.window.showErrorMessage(isLedgerError(err) ? err.message : String(err));
              }
              return;
            }
            case 'copyId':
              return copyId(message.id, '');
          }
        },
      }),
    );
  }

  /** The panels open now, by workflow id (tests look at them). */
  get openIds(): string[] {
    return this.pages.openIds;
  }

  /** The page a panel shows now (tests look at it). */
  pageOf(workflowId: string): WorkflowPage | undefined {
    return this.pages.pageOf(workflowId);
  }

  async show(workflowId: string, focusTaskId?: string): Promise<void> {
    await this.pages.show(workflowId, focusTaskId !== undefined ? { focus: focusTaskId } : {});
  }
}
