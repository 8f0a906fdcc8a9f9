// Messages between the task webview and the extension host. Types both ways; the host parses what
// the webview sends with the zod schema (the webview imports the types only).

import * as z from 'zod';
import type { TaskAttempt, TaskWithHistory } from '../core/queue/types';

/** An attempt as the page shows it: core's own, sent as it is. */
export type AttemptView = TaskAttempt;

/** A task as the page shows it: core's task with its attempts, sent as it is. */
export type TaskView = TaskWithHistory;

export interface TaskPageView {
  task: TaskView;
  typeName: string;
  projectClosed: boolean;
}

export type HostToTask = { type: 'task'; view: TaskPageView; busy: boolean; error?: string } | { type: 'missing'; id: string; message: string };

export const taskToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('requeue') }),
  z.object({ type: z.literal('cancel') }),
  z.object({ type: z.literal('copyId') }),
]);

export type TaskToHost = z.infer<typeof taskToHost>;
