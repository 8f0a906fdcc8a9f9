// Task webviews: one panel per queue task, showing its instructions, variables, the lease left and
// every attempt, with Requeue and Cancel for a person; live when any process changes the ledger.

import * as vscode from 'vscode';
import type { Logger } from '../../core/log';
import type { HostToTask, TaskPageView, TaskToHost } from '../../shared/taskProtocol';
import { loadCore } from '../core';
import { Disposable } from '../disposable';
import type { LedgerHost } from '../ledgerHost';
import { copyId, ledgerMissing, Pages, type OpenPage } from '../webviews/pages';

export const TASK_VIEW_TYPE = 'agentProgress.task';

export function taskTitle(instructions: string, id: string): string {
  const line = (instructions.split('\n').find((l) => l.trim() !== '') ?? '').trim();
  if (line === '') return `Task ${id}`;
  return line.length > 50 ? `${line.slice(0, 49)}…` : line;
}

export type TaskPages = Pages<TaskPageView, HostToTask, TaskToHost>;

export class TaskPanels extends Disposable {
  readonly pages: TaskPages;

  constructor(
    extensionUri: vscode.Uri,
    private readonly host: LedgerHost,
    logger: Logger,
  ) {
    super();
    const pages: TaskPages = new Pages(extensionUri, logger, {
      viewType: TASK_VIEW_TYPE,
      name: 'task',
      onDidChange: host.onDidChange,
      load: (id) => this.load(id),
      keyOf: (view) => view.task.id,
      title: (view) => taskTitle(view.task.instructions, view.task.id),
      render: (page) => ({ type: 'task', view: page.model!, busy: page.busy, ...(page.error ? { error: page.error } : {}) }),
      missing: ledgerMissing<HostToTask>((id, message) => ({ type: 'missing', id, message }), 'Task'),
      parse: (raw) => loadCore().taskToHost.safeParse(raw),
      handle: async (page, message) => {
        switch (message.type) {
          case 'copyId':
            return copyId(page.key, 'task id');
          case 'requeue':
          case 'cancel':
            return this.act(page, message.type);
        }
      },
    });
    this.pages = this.register(pages);
  }

  /** The panels open now, by task id (tests look at them). */
  get openIds(): string[] {
    return this.pages.openIds;
  }

  private async load(id: string): Promise<TaskPageView> {
    const queue = await this.host.queue();
    const task = await queue.getTask({ taskId: id });
    const [types, project] = await Promise.all([queue.listTaskTypes({ projectId: task.projectId }), queue.getProject({ projectId: task.projectId })]);
    const type = types.find((t) => t.id === task.typeId);
    return { task, typeName: type?.name || '(default)', projectClosed: project.status === 'closed' };
  }

  async show(id: string): Promise<void> {
    await this.pages.show(id);
  }

  private async act(page: OpenPage<TaskPageView>, action: 'requeue' | 'cancel'): Promise<void> {
    if (page.busy) return;
    const id = page.key;
    if (action === 'cancel') {
      const pick = await vscode.window.showWarningMessage(
        `Cancel this task? No agent will be given it again.`,
        { modal: true, detail: page.model ? taskTitle(page.model.task.instructions, id) : id },
        'Cancel Task',
      );
      if (pick !== 'Cancel Task') return;
    }
    await this.pages.busyWith(page, async () => {
      const queue = await this.host.queue();
      const actor = { kind: 'operator' as const, name: 'editor' };
      if (action === 'requeue') await queue.requeueTask(id, actor);
      else await queue.cancelTask(id, actor);
      page.model = await this.load(id);
    });
  }
}
