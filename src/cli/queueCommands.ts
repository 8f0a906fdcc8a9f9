// CLI commands of the task queue, with the specification's kebab-case names and positional arguments
// (taskdriver create-project <name> [description] ...), thin wrappers over QueueService. Agent
// commands authenticate with --key or $AGENT_PROGRESS_AGENT_KEY.

import * as path from 'node:path';
import { isLedgerError } from '../core/errors';
import { parseTaskFile } from '../core/queue/importFile';
import { readRegularTextSync } from '../core/regularFile';
import type { QueueService } from '../core/queue/queueService';
import { newQueueSession, type QueueSession } from '../core/queue/session';
import type { Actor, QueueProject, Task, TaskAttempt } from '../core/queue/types';
import { flagSet, flagValue, parseArgv, UsageError, type FlagSpec, type Parsed } from './args';
import type { Command, CommandContext } from './command';

const CLI_OPERATOR: Actor = { kind: 'operator', name: process.env.USER ? `cli:${process.env.USER}` : 'cli' };
const BULK_CHUNK = 1_000;

interface Spec {
  name: string;
  summary: string;
  args: string; // "<project> [description]"
  options?: string; // usage lines for flags
  flags?: Record<string, FlagSpec>;
  min: number;
  max: number;
  run(q: QueueService, a: { pos: string[]; p: Parsed; session: QueueSession; ctx: CommandContext }): Promise<{ text: string; json: unknown }>;
}

function num(p: Parsed, flag: string): number | undefined {
  const v = flagValue(p, flag);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || Number.isNaN(n)) throw new UsageError(`--${flag} must be a number, got "${v}"`);
  return n;
}

function key(p: Parsed): string | undefined {
  return flagValue(p, 'key') ?? (process.env.AGENT_PROGRESS_AGENT_KEY?.trim() || undefined);
}

/** key=value arguments as template variables. */
function variables(items: string[]): Record<string, string> | undefined {
  if (items.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`Variables are name=value, got "${item}"`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

const counts = (p: QueueProject): string =>
  `${p.stats.queuedTasks} queued, ${p.stats.runningTasks} running, ${p.stats.completedTasks} completed, ${p.stats.failedTasks} failed${p.stats.cancelledTasks ? `, ${p.stats.cancelledTasks} cancelled` : ''}`;
const projectText = (p: QueueProject): string => `${p.id}${p.status === 'closed' ? ' (closed)' : ''}: ${counts(p)}${p.description ? `\n  ${p.description}` : ''}`;
const taskText = (t: Task): string =>
  `${t.id}  ${t.status.padEnd(9)} ${t.assignedTo && t.status === 'running' ? `${t.assignedTo} until ${t.leaseExpiresAt}  ` : ''}${(t.instructions.split('\n')[0] ?? '').slice(0, 80)}`;
const attemptText = (a: TaskAttempt): string =>
  `${a.startedAt}  ${a.agentName}  ${a.status}${a.failureReason ? ` (${a.failureReason})` : ''}${a.explanation ? `: ${a.explanation}` : ''}`;
const heldText = (t: Task): string => `Task ${t.id}, lease until ${t.leaseExpiresAt}:\n${t.instructions}`;
const keyFlags = { key: { value: true }, json: {} } satisfies Record<string, FlagSpec>;

const SPECS: Spec[] = [
  {
    name: 'create-project',
    summary: 'create a task queue project',
    args: '<name> [description]',
    options:
      '  --max-retries N          default retries of its task types (3)\n  --lease-duration MIN     default lease in minutes, fractions allowed (10)\n  --reaper-interval MIN    how often expired leases are checked (1)',
    flags: { 'max-retries': { value: true }, 'lease-duration': { value: true }, 'reaper-interval': { value: true } },
    min: 1,
    max: 2,
    async run(q, { pos, p, session }) {
      const project = await q.createProject(
        {
          name: pos[0],
          ...(pos[1] !== undefined ? { description: pos[1] } : {}),
          ...(num(p, 'max-retries') !== undefined ? { defaultMaxRetries: num(p, 'max-retries') } : {}),
          ...(num(p, 'lease-duration') !== undefined ? { defaultLeaseDurationMinutes: num(p, 'lease-duration') } : {}),
          ...(num(p, 'reaper-interval') !== undefined ? { reaperIntervalMinutes: num(p, 'reaper-interval') } : {}),
        },
        CLI_OPERATOR,
        session,
      );
      return { text: `Created project ${project.id}`, json: { project } };
    },
  },
  {
    name: 'list-projects',
    summary: 'list projects with task counts',
    args: '',
    options: '  --include-closed         closed projects too',
    flags: { 'include-closed': {} },
    min: 0,
    max: 0,
    async run(q, { p, session }) {
      const projects = await q.listProjects({ includeClosed: flagSet(p, 'include-closed') }, session);
      return { text: projects.length ? projects.map(projectText).join('\n') : 'No projects.', json: { projects } };
    },
  },
  ...(['get-project', 'close-project', 'join-project'] as const).map(
    (name): Spec => ({
      name,
      summary: name === 'get-project' ? 'show a project and its counts' : name === 'close-project' ? 'stop assigning tasks of a project' : 'show a project to work in',
      args: '<project>',
      min: 1,
      max: 1,
      async run(q, { pos, session }) {
        const args = { projectId: pos[0] };
        const project =
          name === 'get-project'
            ? await q.getProject(args, session)
            : name === 'close-project'
              ? await q.closeProject(args, CLI_OPERATOR, session)
              : await q.joinProject(args, session);
        const text =
          name === 'join-project' ? `${projectText(project)}\nAgents: register-agent ${project.id} [name], then request-task ${project.id} <name>.` : projectText(project);
        return { text, json: { project } };
      },
    }),
  ),
  {
    name: 'create-task-type',
    summary: 'define a task type with a {{variable}} template',
    args: '<project> <name> [template]',
    options:
      "  --variables a,b          the template's variables (default: taken from it)\n  --duplicates MODE        allow (default), ignore or fail\n  --max-retries N          retries before a task fails\n  --lease-duration MIN     lease in minutes, fractions allowed",
    flags: { variables: { value: true }, duplicates: { value: true }, 'max-retries': { value: true }, 'lease-duration': { value: true } },
    min: 2,
    max: 3,
    async run(q, { pos, p, session }) {
      const vars = flagValue(p, 'variables');
      const type = await q.createTaskType(
        {
          projectId: pos[0],
          name: pos[1],
          ...(pos[2] !== undefined ? { template: pos[2] } : {}),
          ...(vars !== undefined
            ? {
                variables: vars
                  .split(',')
                  .map((v) => v.trim())
                  .filter(Boolean),
              }
            : {}),
          ...(flagValue(p, 'duplicates') !== undefined ? { duplicateHandling: flagValue(p, 'duplicates') } : {}),
          ...(num(p, 'max-retries') !== undefined ? { maxRetries: num(p, 'max-retries') } : {}),
          ...(num(p, 'lease-duration') !== undefined ? { leaseDurationMinutes: num(p, 'lease-duration') } : {}),
        },
        CLI_OPERATOR,
        session,
      );
      return { text: `Created task type ${type.name} (${type.id})${type.variables.length ? ` with variables ${type.variables.join(', ')}` : ''}`, json: { taskType: type } };
    },
  },
  {
    name: 'list-task-types',
    summary: "list a project's task types",
    args: '<project>',
    min: 1,
    max: 1,
    async run(q, { pos, session }) {
      const taskTypes = await q.listTaskTypes({ projectId: pos[0] }, session);
      return { text: taskTypes.length ? taskTypes.map((t) => `${t.id}  ${t.name}${t.template ? `: ${t.template}` : ''}`).join('\n') : 'No task types.', json: { taskTypes } };
    },
  },
  {
    name: 'get-task-type',
    summary: 'show a task type',
    args: '<project> <type>',
    min: 2,
    max: 2,
    async run(q, { pos, session }) {
      const type = await q.getTaskType({ projectId: pos[0], typeId: pos[1] }, session);
      return {
        text: `${type.name} (${type.id})\ntemplate: ${type.template ?? '(none)'}\nvariables: ${type.variables.join(', ') || '(none)'}\nduplicates: ${type.duplicateHandling}, retries ${type.maxRetries}, lease ${type.leaseDurationMinutes} min`,
        json: { taskType: type },
      };
    },
  },
  {
    name: 'add-task',
    summary: 'queue a task',
    args: '<project> <type> [instructions] [name=value...]',
    options: '  <type> is a task type id or name; "-" for plain instructions.\n  A template type takes name=value variables; a plain one, instructions.',
    min: 2,
    max: Infinity,
    async run(q, { pos, session }) {
      const [projectId, type, ...rest] = pos;
      const vars = rest.filter((r) => /^[A-Za-z_][A-Za-z0-9_.-]*=/.test(r));
      const words = rest.filter((r) => !vars.includes(r));
      if (words.length > 1) throw new UsageError('Give the instructions as one argument (quote them)');
      const out = await q.addTask(
        {
          projectId,
          ...(type !== '-' ? { typeId: type } : {}),
          ...(words[0] !== undefined ? { instructions: words[0] } : {}),
          ...(vars.length ? { variables: variables(vars) } : {}),
        },
        CLI_OPERATOR,
        session,
      );
      return { text: out.created ? `Queued task ${out.task.id}` : `A task with these variables exists: ${out.task.id} (${out.task.status})`, json: out };
    },
  },
  {
    name: 'create-tasks-bulk',
    summary: 'queue tasks from a JSON, JSON-lines or CSV file',
    args: '<project> <tasks-file>',
    options:
      '  JSON: [{"typeId": "t", "variables": {"a": "1"}}, ...]; CSV: a header with typeId,\n  instructions and one column per variable. Files over 1,000 rows are sent in chunks.',
    min: 2,
    max: 2,
    async run(q, { pos, session, ctx }) {
      const file = path.resolve(ctx.cwd, pos[1]!);
      let text: string;
      try {
        text = readRegularTextSync(file, { maxBytes: 64 << 20, what: 'The task file' });
      } catch (err) {
        if (isLedgerError(err)) throw err;
        throw new UsageError(`Cannot read ${pos[1]}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
      }
      const rows = parseTaskFile(text, file);
      const total = {
        tasksCreated: 0,
        duplicatesIgnored: 0,
        errors: [] as { index: number; message: string }[],
        createdTasks: [] as { id: string; typeId: string; status: string }[],
      };
      for (let start = 0; start < rows.length; start += BULK_CHUNK) {
        const out = await q.createTasksBulk({ projectId: pos[0], tasks: rows.slice(start, start + BULK_CHUNK) }, CLI_OPERATOR, session);
        total.tasksCreated += out.tasksCreated;
        total.duplicatesIgnored += out.duplicatesIgnored;
        total.errors.push(...out.errors.map((e) => ({ index: e.index + start, message: e.message })));
        total.createdTasks.push(...out.createdTasks);
        if (rows.length > BULK_CHUNK && !ctx.stdinIsTty) ctx.out.error(`  ${Math.min(start + BULK_CHUNK, rows.length)} of ${rows.length} rows sent`);
      }
      const errors = total.errors.map((e) => `  row ${e.index + 1}: ${e.message}`).join('\n');
      return {
        text: `Created ${total.tasksCreated} of ${rows.length} tasks${total.duplicatesIgnored ? ` (${total.duplicatesIgnored} duplicates ignored)` : ''}${total.errors.length ? `; ${total.errors.length} rows refused:\n${errors}` : ''}`,
        json: total,
      };
    },
  },
  {
    name: 'get-task',
    summary: 'show a task with its history',
    args: '<task-id>',
    min: 1,
    max: 1,
    async run(q, { pos, session }) {
      const task = await q.getTask({ taskId: pos[0] }, session);
      return { text: `${taskText(task)}\n\n${task.instructions}\n\nAttempts:\n${task.attempts.map((a) => `  ${attemptText(a)}`).join('\n') || '  none'}`, json: { task } };
    },
  },
  {
    name: 'list-tasks',
    summary: "list a project's tasks",
    args: '<project>',
    options:
      '  --status S               queued, running, completed, failed or cancelled\n  --type T                 only this task type\n  --limit N, --offset N    paging (default 50)',
    flags: { status: { value: true }, type: { value: true }, limit: { value: true }, offset: { value: true } },
    min: 1,
    max: 1,
    async run(q, { pos, p, session }) {
      const out = await q.listTasks(
        {
          projectId: pos[0],
          ...(flagValue(p, 'status') !== undefined ? { status: flagValue(p, 'status') } : {}),
          ...(flagValue(p, 'type') !== undefined ? { typeId: flagValue(p, 'type') } : {}),
          ...(num(p, 'limit') !== undefined ? { limit: num(p, 'limit') } : {}),
          ...(num(p, 'offset') !== undefined ? { offset: num(p, 'offset') } : {}),
        },
        session,
      );
      return { text: `${out.tasks.map(taskText).join('\n')}${out.tasks.length ? '\n' : ''}${out.tasks.length} of ${out.total} tasks`, json: out };
    },
  },
  {
    name: 'register-agent',
    summary: 'register an agent and print its API key (once)',
    args: '<project> [agent-name]',
    options: '  --key KEY                reconnect an agent registered before',
    flags: keyFlags,
    min: 1,
    max: 2,
    async run(q, { pos, p, session }) {
      const out = await q.registerAgent(
        { projectId: pos[0], ...(pos[1] !== undefined ? { agentName: pos[1] } : {}), ...(key(p) !== undefined ? { apiKey: key(p) } : {}) },
        session,
      );
      const text = out.apiKey
        ? `Registered agent ${out.agent.name} in ${out.agent.projectId}.\nAPI key (shown only now): ${out.apiKey}\nUse it with --key or AGENT_PROGRESS_AGENT_KEY.`
        : `Reconnected agent ${out.agent.name} in ${out.agent.projectId}.`;
      return { text, json: out };
    },
  },
  ...(['get-current-task', 'request-task'] as const).map(
    (name): Spec => ({
      name,
      summary: name === 'request-task' ? 'take the next task (as an agent)' : 'show the task an agent holds',
      args: '<project> <agent-name>',
      options: "  --key KEY                the agent's API key (or AGENT_PROGRESS_AGENT_KEY)",
      flags: keyFlags,
      min: 2,
      max: 2,
      async run(q, { pos, p, session }) {
        const args = { projectId: pos[0], agentName: pos[1], ...(key(p) !== undefined ? { apiKey: key(p) } : {}) };
        if (name === 'get-current-task') {
          const task = await q.getCurrentTask(args, session);
          return { text: task ? heldText(task) : 'No task held.', json: { task: task ?? null } };
        }
        const out = await q.requestTask(args, session);
        const text = out.task
          ? `${out.alreadyAssigned ? 'Already holding' : 'Assigned'} ${heldText(out.task)}`
          : out.reason === 'closed'
            ? 'The project is closed.'
            : 'No task is queued.';
        return { text, json: { task: out.task ?? null, alreadyAssigned: out.alreadyAssigned, reason: out.reason } };
      },
    }),
  ),
  {
    name: 'complete-task',
    summary: 'report a task done (as an agent)',
    args: '<task-id> <explanation>',
    options: '  --agent NAME, --key KEY  the agent (or AGENT_PROGRESS_AGENT_KEY)',
    flags: { ...keyFlags, agent: { value: true } },
    min: 2,
    max: 2,
    async run(q, { pos, p, session }) {
      const task = await q.completeTask({ taskId: pos[0], explanation: pos[1], ...agentArgs(p) }, session);
      return { text: `Task ${task.id} completed.`, json: { task } };
    },
  },
  {
    name: 'fail-task',
    summary: 'report a task failed (as an agent)',
    args: '<task-id> <explanation>',
    options: '  --no-retry               fail it for good\n  --agent NAME, --key KEY  the agent (or AGENT_PROGRESS_AGENT_KEY)',
    flags: { ...keyFlags, agent: { value: true }, 'no-retry': {} },
    min: 2,
    max: 2,
    async run(q, { pos, p, session }) {
      const out = await q.failTask({ taskId: pos[0], explanation: pos[1], canRetry: !flagSet(p, 'no-retry'), ...agentArgs(p) }, session);
      return { text: out.requeued ? `Task ${out.task.id} failed; requeued (retry ${out.task.retryCount} of ${out.task.maxRetries}).` : `Task ${out.task.id} failed.`, json: out };
    },
  },
  {
    name: 'extend-lease',
    summary: "extend a task's lease (as an agent)",
    args: '<task-id> <additional-minutes>',
    options: '  --agent NAME, --key KEY  the agent (or AGENT_PROGRESS_AGENT_KEY)',
    flags: { ...keyFlags, agent: { value: true } },
    min: 2,
    max: 2,
    async run(q, { pos, p, session }) {
      const minutes = Number(pos[1]);
      if (Number.isNaN(minutes)) throw new UsageError(`<additional-minutes> must be a number, got "${pos[1]}"`);
      const task = await q.extendLease({ taskId: pos[0], additionalMinutes: minutes, ...agentArgs(p) }, session);
      return { text: `Lease on ${task.id} extended to ${task.leaseExpiresAt}.`, json: { task } };
    },
  },
  {
    name: 'get-project-status',
    summary: 'queue counts and agents of a project',
    args: '<project>',
    min: 1,
    max: 1,
    async run(q, { pos, session }) {
      const s = await q.getProjectStatus({ projectId: pos[0] }, session);
      const agents = s.agents.list.map((a) => `  ${a.name.padEnd(20)} ${a.status}${a.currentTaskId ? ` on ${a.currentTaskId}` : ''}  last seen ${a.lastSeen}`).join('\n');
      return { text: `${projectText(s.project)}\nAgents (${s.agents.working} working, ${s.agents.idle} idle):\n${agents || '  none'}`, json: s };
    },
  },
  {
    name: 'get-agent-status',
    summary: "an agent's state",
    args: '<project> <agent-name>',
    min: 2,
    max: 2,
    async run(q, { pos, session }) {
      const a = await q.getAgentStatus({ projectId: pos[0], agentName: pos[1] }, session);
      return {
        text: `${a.name}: ${a.status}${a.currentTaskId ? ` on ${a.currentTaskId}` : ''}, last seen ${a.lastSeen}${a.connected ? '' : ', not connected'}`,
        json: { agent: a },
      };
    },
  },
  {
    name: 'get-task-history',
    summary: "a task's attempts",
    args: '<task-id>',
    min: 1,
    max: 1,
    async run(q, { pos, session }) {
      const out = await q.getTaskHistory({ taskId: pos[0] }, session);
      return { text: out.attempts.map(attemptText).join('\n') || 'No attempts yet.', json: out };
    },
  },
  {
    name: 'get-audit-log',
    summary: "a project's audit trail, newest first",
    args: '<project>',
    options: '  --limit N, --before ID   paging',
    flags: { limit: { value: true }, before: { value: true } },
    min: 1,
    max: 1,
    async run(q, { pos, p, session }) {
      const out = await q.getAuditLog(
        { projectId: pos[0], ...(num(p, 'limit') !== undefined ? { limit: num(p, 'limit') } : {}), ...(num(p, 'before') !== undefined ? { before: num(p, 'before') } : {}) },
        session,
      );
      const lines = out.events.map((e) => `${e.id}  ${e.at}  ${e.actor}  ${e.action}${e.taskId ? `  ${e.taskId}` : ''}`);
      return { text: `${lines.join('\n') || 'No events.'}${out.nextBefore ? `\nMore: --before ${out.nextBefore}` : ''}`, json: out };
    },
  },
  ...(['requeue-task', 'cancel-task'] as const).map(
    (name): Spec => ({
      name,
      summary: name === 'requeue-task' ? "put a task back in the queue (a person's decision)" : 'withdraw a queued or running task',
      args: '<task-id>',
      min: 1,
      max: 1,
      async run(q, { pos }) {
        const task = name === 'requeue-task' ? await q.requeueTask(pos[0]!, CLI_OPERATOR) : await q.cancelTask(pos[0]!, CLI_OPERATOR);
        return { text: `Task ${task.id} is ${task.status}.`, json: { task } };
      },
    }),
  ),
  {
    name: 'queue-metrics',
    summary: 'the Prometheus metrics of every queue',
    args: '',
    min: 0,
    max: 0,
    async run(q) {
      const text = await q.metrics();
      return { text: text.trimEnd(), json: { metrics: text } };
    },
  },
];

function agentArgs(p: Parsed): { agentName?: string; apiKey?: string } {
  return { ...(flagValue(p, 'agent') !== undefined ? { agentName: flagValue(p, 'agent') } : {}), ...(key(p) !== undefined ? { apiKey: key(p) } : {}) };
}

function toCommand(spec: Spec): Command {
  return {
    name: spec.name,
    summary: spec.summary,
    group: 'Task queue',
    usage: `Usage: agent-progress ${spec.name}${spec.args ? ` ${spec.args}` : ''} [--json]\n\n${spec.summary[0]!.toUpperCase()}${spec.summary.slice(1)}.${spec.options ? `\n\nOptions:\n${spec.options}` : ''}\n  --json                   print the result as JSON`,
    async run(argv, ctx) {
      const p = parseArgv(argv, { json: {}, ...(spec.flags ?? {}) });
      const pos = p.positionals;
      if (pos.length < spec.min) throw new UsageError(`Missing argument: ${spec.args.split(' ')[pos.length] ?? spec.args}`);
      if (pos.length > spec.max) throw new UsageError(`Unexpected argument "${pos[spec.max]}"`);
      const q = await ctx.services.queue();
      const session = newQueueSession();
      try {
        const { text, json } = await spec.run(q, { pos, p, session, ctx });
        if (flagSet(p, 'json')) ctx.out.json(json);
        else ctx.out.line(text);
      } catch (err) {
        if (isLedgerError(err) && err.code === 'permission_denied' && !key(p) && spec.flags !== undefined && 'key' in spec.flags) {
          throw new UsageError(`${err.message} (from the CLI: --key KEY or AGENT_PROGRESS_AGENT_KEY)`);
        }
        throw err;
      } finally {
        if (session.agent) await q.endSession(session);
      }
    },
  };
}

export const QUEUE_COMMANDS: readonly Command[] = SPECS.map(toCommand);
