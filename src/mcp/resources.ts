// MCP resources: progress log entries, queue tasks and workflows as documents an agent or a person
// can attach (VS Code: "Add Context > MCP Resources"). Listed newest first in pages under 30 KB
// (cursor), read through templates `agent-progress://<kind>/{id}`; each text capped under 30 KB.
// Offered only for the toolsets the server serves.

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import { isLedgerError } from '../core/errors';
import type { Logger } from '../core/log';
import { capStrings, capText, longestFitting } from '../core/responseBudget';
import type { WorkflowDetail } from '../core/workflow/types';
import { ProtocolError } from './toolResult';
import { TOOLSET_NAMES, type ResourceDescriptor, type ToolsetCatalog, type ToolsetContext, type ToolsetName } from './toolset';

export const RESOURCE_SCHEME = 'agent-progress';
/** Items per resources/list page: about 250 bytes each, so a page stays near 12 KB. */
export const RESOURCE_PAGE_SIZE = 50;
/** The most text one resource returns (UTF-8 bytes); the rest is cut with a note saying so. */
export const RESOURCE_TEXT_BYTES = 28_000;
/** MCP's "resource not found" error code. */
const RESOURCE_NOT_FOUND = -32002;

const line = (s: string | null | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim();

/** Pretty JSON within `maxBytes`: the longest strings cut to the longest length that fits. */
export function fitJson(value: unknown, maxBytes: number, more: string): string {
  const whole = JSON.stringify(value, null, 2);
  if (Buffer.byteLength(whole) <= maxBytes) return whole;
  const render = (max: number): string => JSON.stringify({ ...(capStrings(value, max) as object), truncated: `Texts longer than ${max} characters are cut. ${more}` }, null, 2);
  return render(longestFitting(64, whole.length, (max) => Buffer.byteLength(render(max)) <= maxBytes));
}

export const entryResource: ResourceDescriptor = {
  kind: 'entry',
  template: {
    uriTemplate: `${RESOURCE_SCHEME}://entry/{id}`,
    name: 'progress-entry',
    title: 'Progress log entry',
    description: 'One entry of the shared progress log, in full (Markdown): title, project, agent, tags, time, summary and content. Ids come from search_logs.',
    mimeType: 'text/markdown',
  },
  list: async (deps, offset, limit) => {
    const page = await (await deps.services.progress()).listEntries(deps.project, { limit, offset });
    return {
      total: page.total,
      items: page.entries.map((e) => ({
        uri: `${RESOURCE_SCHEME}://entry/${e.id}`,
        name: `entry-${e.id}`,
        title: `${e.title} (${e.projectId})`,
        description: `Progress entry ${e.id} of ${e.projectId}, ${e.createdAt}${e.agentId ? ` by ${e.agentId}` : ''}`,
        mimeType: 'text/markdown',
      })),
    };
  },
  read: async (deps, id) => {
    const e = await (await deps.services.progress()).showEntry(id);
    const head = [
      `# ${e.title}`,
      '',
      `- id: ${e.id}`,
      `- project: ${e.projectId}`,
      `- logged: ${e.createdAt}${e.agentId ? ` by ${e.agentId}` : ''}`,
      ...(e.tags.length ? [`- tags: ${e.tags.join(', ')}`] : []),
      ...(e.summary ? ['', `Summary: ${e.summary}`] : []),
      '',
    ].join('\n');
    return head + capText(e.content, RESOURCE_TEXT_BYTES - Buffer.byteLength(head), `get_context with includeFull returns the whole entry ${e.id}.`);
  },
};

export const taskResource: ResourceDescriptor = {
  kind: 'task',
  template: {
    uriTemplate: `${RESOURCE_SCHEME}://task/{id}`,
    name: 'queue-task',
    title: 'Queue task',
    description: 'One task of a task queue as JSON: instructions, variables, status, holder and lease, result, and every attempt. Ids come from list_tasks or request_task.',
    mimeType: 'application/json',
  },
  list: async (deps, offset, limit) => {
    // Tasks of every queue project the session may see, project by project in queue order.
    const queue = await deps.services.queue();
    const projects = (await queue.listProjects({ includeClosed: true }, deps.session)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const total = projects.reduce((n, p) => n + p.stats.totalTasks, 0);
    const items: Resource[] = [];
    let skip = offset;
    for (const p of projects) {
      if (items.length >= limit) break;
      if (skip >= p.stats.totalTasks) {
        skip -= p.stats.totalTasks;
        continue;
      }
      const page = await queue.listTasks({ projectId: p.id, limit: Math.min(200, limit - items.length), offset: skip }, deps.session);
      skip = 0;
      for (const t of page.tasks) {
        items.push({
          uri: `${RESOURCE_SCHEME}://task/${t.id}`,
          name: `task-${t.id}`,
          title: `${line(t.instructions).slice(0, 80) || t.id} (${t.projectId}, ${t.status})`,
          description: `Task ${t.id} of queue project ${t.projectId}: ${t.status}${t.assignedTo ? `, held by ${t.assignedTo}` : ''}`,
          mimeType: 'application/json',
        });
      }
    }
    return { items, total };
  },
  read: async (deps, id) =>
    fitJson(
      await (await deps.services.queue()).getTask({ taskId: id }, deps.session),
      RESOURCE_TEXT_BYTES,
      'get_task, `agent-progress get-task ID --json` or the task page in VS Code show it whole.',
    ),
};

export const workflowResource: ResourceDescriptor = {
  kind: 'workflow',
  template: {
    uriTemplate: `${RESOURCE_SCHEME}://workflow/{id}`,
    name: 'workflow',
    title: 'Workflow',
    description: 'One tracked workflow (Markdown): its plan, every task and subtask with status, outcome and files changed, and its timeline of decisions, issues and milestones.',
    mimeType: 'text/markdown',
  },
  list: async (deps, offset, limit) => {
    const page = await (await deps.services.workflow()).listWorkflows({ ...(deps.project ? { projectId: deps.project } : {}), limit, offset });
    return {
      total: page.total,
      items: page.workflows.map((w) => ({
        uri: `${RESOURCE_SCHEME}://workflow/${w.id}`,
        name: `workflow-${w.id}`,
        title: `${w.name} (${w.projectId})`,
        description: `Workflow ${w.id}: ${w.taskCount} tasks, ${w.running} running; last activity ${w.lastActivityAt}`,
        mimeType: 'text/markdown',
      })),
    };
  },
  read: async (deps, id) =>
    capText(
      workflowMarkdown(await (await deps.services.workflow()).workflowDetail(id)),
      RESOURCE_TEXT_BYTES,
      'The Workflows view in VS Code and `agent-progress workflow ID` show it whole.',
    ),
};

/** A workflow as Markdown: plan, tasks (indented by depth), then the timeline newest last. */
export function workflowMarkdown(detail: WorkflowDetail): string {
  const { workflow, tasks, events } = detail;
  const out = [`# ${workflow.name}`, '', `- id: ${workflow.id}`, `- project: ${workflow.projectId}`, `- started: ${workflow.createdAt}`];
  if (workflow.description) out.push('', workflow.description);
  if (workflow.plan.length) out.push('', '## Plan', '', ...workflow.plan.map((s, i) => `${i + 1}. ${line(s.step)}: ${line(s.goal)}`));
  out.push('', '## Tasks', '');
  const depth = (t: (typeof tasks)[number]): number => {
    let d = 0;
    for (let p = t.parentTaskId; p && d < 20; p = tasks.find((x) => x.id === p)?.parentTaskId ?? null) d++;
    return d;
  };
  if (tasks.length === 0) out.push('No task yet.');
  for (const t of tasks) {
    const pad = '  '.repeat(depth(t));
    const files = t.filesChanged ? t.filesChanged.added.length + t.filesChanged.modified.length + t.filesChanged.deleted.length + t.filesChanged.renamed.length : 0;
    out.push(`${pad}- **${line(t.name)}** (${t.id}): ${t.status}${t.progress !== null && t.status === 'in_progress' ? ` ${t.progress}%` : ''}; goal: ${line(t.goal)}`);
    if (t.outcome) out.push(`${pad}  outcome: ${line(t.outcome.summary)}`);
    if (t.filesChanged)
      out.push(
        `${pad}  files changed: ${files}${files ? `: ${[...t.filesChanged.added, ...t.filesChanged.modified, ...t.filesChanged.deleted].slice(0, 20).join(', ')}${files > 20 ? ', ...' : ''}` : ''}`,
      );
  }
  out.push('', '## Timeline', '');
  for (const e of events) {
    const text =
      e.kind === 'decision'
        ? `decision: ${line(e.data.question)} -> ${line(e.data.chosen)} (${line(e.data.reasoning)})`
        : e.kind === 'issue'
          ? `issue (${e.data.type}${e.data.requires_human_review ? ', needs review' : ''}): ${line(e.data.description)} -> ${line(e.data.resolution)}`
          : e.kind === 'milestone'
            ? `milestone: ${line(e.data.message)}${e.data.progress !== undefined ? ` (${e.data.progress}%)` : ''}`
            : e.kind === 'task_completed'
              ? `completed (${e.data.status}): ${line(e.data.summary)}`
              : `${e.kind.replace('_', ' ')}: ${line(e.data.name)}`;
    out.push(`- ${e.createdAt}${e.taskId ? ` [${e.taskId}]` : ''} ${text}`);
  }
  return out.join('\n') + '\n';
}

interface Cursor {
  k: number;
  o: number;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function decodeCursor(raw: string, kinds: number): Cursor {
  try {
    const c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor;
    if (Number.isInteger(c.k) && Number.isInteger(c.o) && c.k >= 0 && c.k < kinds && c.o >= 0) return c;
  } catch {
    // below
  }
  throw new ProtocolError(ErrorCode.InvalidParams, 'Invalid cursor: pass the nextCursor of the previous resources/list answer, or none for the first page.');
}

function mapError(err: unknown, uri: string, logger: Logger): never {
  if (isLedgerError(err) && (err.code === 'not_found' || err.code === 'invalid_argument')) logger.debug(`resource ${uri}: ${err.code}: ${err.message}`);
  if (isLedgerError(err) && err.code === 'not_found') throw new ProtocolError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}. ${err.message}`, { uri });
  if (isLedgerError(err) && err.code === 'invalid_argument') throw new ProtocolError(ErrorCode.InvalidParams, err.message);
  if (err instanceof ProtocolError) throw err;
  logger.error(`resource ${uri}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  throw new ProtocolError(ErrorCode.InternalError, `Could not read ${uri}; the server log has the details.`);
}

/**
 * Installs resources/list, resources/templates/list and resources/read for the resource kinds of
 * the served toolsets, in the toolsets' canonical order (the list's cursor counts kinds in it).
 */
export function installResources(server: Server, catalog: ToolsetCatalog, toolsets: readonly ToolsetName[], deps: ToolsetContext): void {
  const served = TOOLSET_NAMES.filter((t) => toolsets.includes(t)).flatMap((t) => catalog[t].resources);
  if (served.length === 0) return;
  server.registerCapabilities({ resources: { listChanged: false } });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: served.map((k) => k.template) }));
  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    let cursor = request.params?.cursor !== undefined ? decodeCursor(request.params.cursor, served.length) : { k: 0, o: 0 };
    const resources: Resource[] = [];
    try {
      while (resources.length < RESOURCE_PAGE_SIZE && cursor.k < served.length) {
        const spec = served[cursor.k]!;
        const page = await spec.list(deps, cursor.o, RESOURCE_PAGE_SIZE - resources.length);
        resources.push(...page.items);
        const next = cursor.o + page.items.length;
        cursor = page.items.length === 0 || next >= page.total ? { k: cursor.k + 1, o: 0 } : { k: cursor.k, o: next };
      }
    } catch (err) {
      mapError(err, 'resources/list', deps.logger);
    }
    return { resources, ...(cursor.k < served.length ? { nextCursor: encodeCursor(cursor) } : {}) };
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (request): Promise<ReadResourceResult> => {
    const uri = request.params.uri;
    const m = /^agent-progress:\/\/([a-z]+)\/([^/?#]+)$/.exec(uri);
    const spec = m ? served.find((k) => k.kind === m[1]) : undefined;
    if (!m || !spec) {
      throw new ProtocolError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}. This server reads ${served.map((k) => k.template.uriTemplate).join(', ')}.`, { uri });
    }
    let id: string;
    try {
      id = decodeURIComponent(m[2]!);
    } catch {
      throw new ProtocolError(ErrorCode.InvalidParams, `Resource URI ${uri} has a malformed id`);
    }
    try {
      const text = await spec.read(deps, id);
      return { contents: [{ uri, mimeType: spec.template.mimeType!, text }] };
    } catch (err) {
      mapError(err, uri, deps.logger);
    }
  });
}
