// Messages between the workflow webview and the extension host, and the page it shows (plan,
// tasks with their files changed, progress, timeline). Types both ways; the host parses what the
// webview sends with the zod schema (the webview imports the types only).

import * as z from 'zod';

export type TaskState = 'in_progress' | 'success' | 'partial_success' | 'failed';

export interface FileView {
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  path: string;
  from?: string;
  inScope: boolean;
}

export interface TaskView {
  id: string;
  parentId: string | null;
  depth: number;
  name: string;
  goal: string;
  areas: string[];
  status: TaskState;
  startedAt: string;
  completedAt: string | null;
  durationSeconds: number | null;
  /** The latest milestone's progress (0-100) and message while running. */
  progress: number | null;
  milestone: string | null;
  snapshot: string;
  summary: string | null;
  achievements: string[];
  limitations: string[];
  nextSteps: string[];
  reviewReason: string | null;
  reviewNeeded: boolean;
  testsStatus: string | null;
  files: FileView[] | null;
  filesKnown: boolean;
  warnings: string[];
  commits: { sha: string; subject: string }[];
}

export interface TimelineItem {
  seq: number;
  kind: 'workflow_started' | 'task_started' | 'decision' | 'issue' | 'milestone' | 'task_completed';
  at: string;
  taskId: string | null;
  taskName: string | null;
  title: string;
  detail: string[];
  review: boolean;
  progress: number | null;
}

export interface WorkflowPage {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  plan: { step: string; goal: string }[];
  createdAt: string;
  counts: { total: number; running: number; success: number; partial: number; failed: number };
  /** Completed tasks over all tasks, 0-100. */
  percentDone: number;
  tasks: TaskView[];
  timeline: TimelineItem[];
}

export type HostToWorkflow = { type: 'workflow'; page: WorkflowPage; focusTaskId?: string } | { type: 'missing'; id: string; message: string };

export const workflowToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('openFile'), taskId: z.string().max(100), path: z.string().max(4096) }),
  z.object({ type: z.literal('copyId'), id: z.string().max(100) }),
]);

export type WorkflowToHost = z.infer<typeof workflowToHost>;
