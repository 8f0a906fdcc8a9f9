// Messages between the task webview and the extension host. Types both ways; the host parses what
// the webview sends with the zod schema (the webview imports the types only).

import { z } from 'zod';

/** An attempt as the page shows it (core's TaskAttempt has this shape). */
export interface AttemptView {
  id: string;
  agentName: string;
  startedAt: string;
  completedAt: string | null;
  status: string;
  explanation: string | null;
  failureReason: string | null;
}

/** A task as the page shows it (core's TaskWithHistory has this shape). */
export interface TaskView {
  id: string;
  projectId: string;
  instructions: string;
  variables: Record<string, string> | null;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  assignedTo: string | null;
  leaseExpiresAt: string | null;
  retryCount: number;
  maxRetries: number;
  leaseDurationMinutes: number;
  createdAt: string;
  assignedAt: string | null;
  completedAt: string | null;
  result: string | null;
  failureReason: string | null;
  attempts: AttemptView[];
}

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
