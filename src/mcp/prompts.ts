// MCP prompts for the common flows, which VS Code offers as slash commands (/mcp.<server>.<name>):
// resume from the progress log, claim the next queued task, start a tracked task. Each is offered
// only when its toolset is served, and reads the ledger to start the agent off with real ids.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { Logger } from '../core/log';
import { TOOLSET_NAMES, type PromptDescriptor, type ToolsetCatalog, type ToolsetContext, type ToolsetName } from './toolset';

const line = (s: string | null | undefined, max = 160): string => {
  const t = (s ?? '').replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

const text = (description: string, body: string): GetPromptResult => ({ description, messages: [{ role: 'user', content: { type: 'text', text: body } }] });

const optional = (max: number, describe: string) => z.string().max(max).optional().describe(describe);

/** What the ledger could not give stays out of the prompt, but never stops it. */
async function orEmpty<T>(logger: Logger, what: string, read: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await read();
  } catch (err) {
    logger.warn(`prompt: could not read ${what}: ${err instanceof Error ? err.message : String(err)}`);
    return fallback;
  }
}

export const resumeFromLog: PromptDescriptor = {
  name: 'resume_from_log',
  install(mcp, deps) {
    const { services, logger } = deps;
    mcp.registerPrompt(
      'resume_from_log',
      {
        title: 'Resume from the progress log',
        description: "Pick up where earlier agents left off: the newest entries of the project's progress log, then what to read and log.",
        argsSchema: {
          projectId: optional(100, "Project id (default: this workspace's project)."),
          focus: optional(500, 'What you are about to work on, to choose which entries to read.'),
        },
      },
      async ({ projectId, focus }) => {
        const project = projectId?.trim() || deps.project;
        if (!project) {
          return text(
            'Resume from the progress log',
            'Call search_logs with the projectId of this repository (its folder name) to see what earlier agents did, get_context on the entries that matter, then continue and call log_progress after each meaningful step.',
          );
        }
        const page = await orEmpty(logger, 'the log', async () => (await services.progress()).listEntries(project, { limit: 10 }), { entries: [], total: 0 });
        const listed = page.entries.map(
          (e) => `- ${e.id} · ${e.createdAt}${e.agentId ? ` · ${line(e.agentId, 40)}` : ''}: ${line(e.title)}${e.tags.length ? ` [${e.tags.join(', ')}]` : ''}`,
        );
        const body = [
          page.total === 0
            ? `The progress log of project "${project}" has no entry yet: you are the first. Work on the task, and call log_progress (projectId "${project}") after each meaningful step: what you did, where, and why.`
            : `You are resuming work on project "${project}". The newest ${listed.length} of ${page.total} entries of its shared progress log:\n\n${listed.join('\n')}`,
          ...(page.total === 0
            ? []
            : [
                '',
                `1. Call get_context (projectId "${project}") on the entries that matter${focus ? ` for: ${line(focus, 500)}` : ''}; search_logs (text, tags, dates) finds older ones.`,
                '2. Say in a few lines where the work stands and what comes next.',
                `3. Continue the work, and call log_progress (projectId "${project}") after each meaningful step.`,
              ]),
        ].join('\n');
        return text(`Resume project ${project} from its progress log`, body);
      },
    );
  },
};

export const claimNextTask: PromptDescriptor = {
  name: 'claim_next_task',
  install(mcp, deps) {
    const { services, logger } = deps;
    mcp.registerPrompt(
      'claim_next_task',
      {
        title: 'Claim the next queued task',
        description: 'Work through a task queue: join the project, take the next task under a lease, finish or fail it, repeat.',
        argsSchema: {
          projectId: optional(100, 'Queue project (default: the only open one, else you are shown the list).'),
          agentName: optional(100, 'Your agent name in the queue (default: one is made for you).'),
        },
      },
      async ({ projectId, agentName }) => {
        const projects = await orEmpty(logger, 'the queue projects', async () => (await services.queue()).listProjects({}, deps.session), []);
        const open = projects.filter((p) => p.status !== 'closed');
        const chosen = projectId?.trim() || (open.length === 1 ? open[0]!.id : undefined);
        const project = projects.find((p) => p.id === chosen);
        const lines: string[] = [];
        if (!chosen) {
          lines.push(
            open.length === 0
              ? 'There is no open task queue project yet. Ask the user which project to create, or stop here.'
              : `Choose a queue project: ${open.map((p) => `"${p.id}" (${p.stats.queuedTasks} queued, ${p.stats.runningTasks} running)`).join(', ')}.`,
          );
        } else if (project) {
          lines.push(
            `Queue project "${chosen}": ${project.stats.queuedTasks} queued, ${project.stats.runningTasks} running, ${project.stats.completedTasks} completed, ${project.stats.failedTasks} failed.`,
          );
        } else {
          lines.push(`There is no queue project "${chosen}" yet${open.length ? `; open ones: ${open.map((p) => p.id).join(', ')}` : ''}.`);
        }
        const p = chosen ? `"${chosen}"` : 'the project';
        lines.push(
          '',
          `1. Call join_project (projectId ${p}), then register_agent${agentName ? ` with agentName "${line(agentName, 100)}"` : ''} once; keep the apiKey it returns to reconnect later.`,
          '2. Call request_task. If it returns no task, the queue is empty: stop and say so.',
          "3. Do exactly what the task's instructions say. If the work will outlast the lease, call extend_lease before it expires.",
          '4. Call complete_task with the taskId and an explanation of what was done, or fail_task with why (canRetry false when retrying cannot help).',
          '5. Request the next task, until the queue is empty or the user stops you. Never hold two tasks at once.',
        );
        return text(`Claim the next task of ${chosen ?? 'a queue project'}`, lines.join('\n'));
      },
    );
  },
};

export const startTrackedTask: PromptDescriptor = {
  name: 'start_tracked_task',
  install(mcp, deps) {
    const { services, logger } = deps;
    mcp.registerPrompt(
      'start_tracked_task',
      {
        title: 'Start a tracked task',
        description: 'Track a piece of work so people see its decisions, milestones and exactly which files it changed.',
        argsSchema: {
          goal: z.string().min(1).max(2000).describe('What the task must achieve.'),
          areas: optional(2000, 'Folders or files the task should touch, comma-separated (checked against the files changed).'),
          workflowId: optional(100, 'Add the task to this workflow instead of starting a new one.'),
        },
      },
      async ({ goal, areas, workflowId }) => {
        const recent = await orEmpty(
          logger,
          'the workflows',
          async () => (await services.workflow()).listWorkflows({ ...(deps.project ? { projectId: deps.project } : {}), limit: 5 }),
          { workflows: [], total: 0 },
        );
        const running = recent.workflows.filter((w) => w.running > 0);
        const areaList = (areas ?? '')
          .split(',')
          .map((a) => a.trim())
          .filter(Boolean)
          .slice(0, 20);
        const lines = [
          `Goal: ${line(goal, 2000)}`,
          '',
          workflowId
            ? `1. Use workflow ${line(workflowId, 100)}.`
            : `1. Call start_workflow with a short name for this goal${running.length ? ` (or reuse a running workflow: ${running.map((w) => `${w.id} "${line(w.name, 80)}"`).join(', ')})` : ''}.`,
          `2. Before changing any file, call start_task with the workflow_id, a name, the goal${areaList.length ? ` and areas ${JSON.stringify(areaList)}` : ' and the areas you expect to touch'}.`,
          '3. As you work: log_decision for each real choice (options and why), log_issue for problems and how you got past them (requires_human_review when a person must look), log_milestone for progress people can watch.',
          '4. Finish with complete_task: status (success, partial_success or failed) and an outcome (summary, achievements, limitations). It records the files the task changed.',
        ];
        return text('Start a tracked task', lines.join('\n'));
      },
    );
  },
};

/**
 * Registers the prompts of the served toolsets, in the toolsets' canonical order (whatever order
 * --toolset named them in), as their descriptors list them.
 */
export function installPrompts(mcp: McpServer, catalog: ToolsetCatalog, toolsets: readonly ToolsetName[], ctx: ToolsetContext): void {
  for (const toolset of TOOLSET_NAMES) if (toolsets.includes(toolset)) for (const prompt of catalog[toolset].prompts) prompt.install(mcp, ctx);
}
