// Inputs and outputs of the queue toolset (TaskDriver specification, README "Tools"), argument names in camelCase as the
// specification's service signatures have them. Descriptions are for the model: short, because every
// toolset's tools/list must stay small.

import * as z from 'zod';
import { boundedInt, boundedNumber, flag, oneOf, optionalText, requiredText, stringMap } from '../validation';
import { VARIABLE_NAME } from './rules';
import { TASK_STATUSES } from './types';

export const QUEUE_LIMITS = {
  name: 100,
  description: 2_000,
  instructions: 20_000,
  template: 20_000,
  variables: 50,
  variableValue: 5_000,
  explanation: 10_000,
  apiKey: 200,
  id: 100,
  bulk: 1_000,
  listLimit: 200,
  defaultListLimit: 50,
  maxRetries: 100,
  leaseMinutes: { min: 0.01, max: 10_080 },
  reaperMinutes: { min: 0.01, max: 1_440 },
} as const;

const projectId = () => requiredText('projectId', QUEUE_LIMITS.name, { identifier: true }).describe('Project id.');
// A session's project is the one it joined (join_project) or registered in (register_agent).
const optionalProjectId = () => optionalText('projectId', QUEUE_LIMITS.name, { identifier: true }).describe("Default: this session's project.");
const taskId = () => requiredText('taskId', QUEUE_LIMITS.id, { identifier: true }).describe('Task id.');
const agentName = () => optionalText('agentName', QUEUE_LIMITS.name, { identifier: true }).describe('Default: the agent this session registered as.');
const apiKey = () => optionalText('apiKey', QUEUE_LIMITS.apiKey, { identifier: true }).describe('Your key from register_agent, once per session.');
const leaseMinutes = (name: string) => boundedNumber(name, QUEUE_LIMITS.leaseMinutes.min, QUEUE_LIMITS.leaseMinutes.max, 'minutes').describe('Minutes; fractions allowed.');
const maxRetries = (name: string) => boundedInt(name, 0, QUEUE_LIMITS.maxRetries).describe('Requeues after a failure or timeout before failing.');
const variables = () =>
  stringMap('variables', { maxKeys: QUEUE_LIMITS.variables, maxValue: QUEUE_LIMITS.variableValue, keyPattern: VARIABLE_NAME }).describe(
    'Template values, e.g. {"threadId": "123"}.',
  );

export const createProjectInput = z
  .object({
    name: requiredText('name', QUEUE_LIMITS.name, { identifier: true }).describe('Project id, e.g. "email-summaries".'),
    description: optionalText('description', QUEUE_LIMITS.description).describe('What the project is for.'),
    defaultMaxRetries: maxRetries('defaultMaxRetries'),
    defaultLeaseDurationMinutes: leaseMinutes('defaultLeaseDurationMinutes'),
    reaperIntervalMinutes: boundedNumber('reaperIntervalMinutes', QUEUE_LIMITS.reaperMinutes.min, QUEUE_LIMITS.reaperMinutes.max, 'minutes').describe(
      'Minutes between lease checks (also checked at every request).',
    ),
  })
  .strict();

export const listProjectsInput = z.object({ includeClosed: flag('includeClosed').describe('Include closed projects.') }).strict();
export const projectInput = z.object({ projectId: projectId() }).strict();
export const projectScopeInput = z.object({ projectId: optionalProjectId() }).strict();

export const createTaskTypeInput = z
  .object({
    projectId: optionalProjectId(),
    name: requiredText('name', QUEUE_LIMITS.name, { identifier: true }).describe('Task type name, unique in the project.'),
    template: optionalText('template', QUEUE_LIMITS.template).describe('Instructions with {{variable}} placeholders.'),
    variables: z
      .array(z.string({ error: 'variables must be an array of names' }), { error: 'variables must be an array of names' })
      .max(QUEUE_LIMITS.variables, { error: `variables exceeds maximum of ${QUEUE_LIMITS.variables} items` })
      .optional()
      .describe('Default: the names the template uses.'),
    duplicateHandling: oneOf('duplicateHandling', ['allow', 'ignore', 'fail']).describe(
      'A task with the same variables as an existing one: allow (default), ignore (return it) or fail.',
    ),
    maxRetries: maxRetries('maxRetries'),
    leaseDurationMinutes: leaseMinutes('leaseDurationMinutes'),
  })
  .strict();

export const taskTypeInput = z.object({ projectId: optionalProjectId(), typeId: requiredText('typeId', QUEUE_LIMITS.id).describe('Task type id or name.') }).strict();

export const addTaskInput = z
  .object({
    projectId: optionalProjectId(),
    typeId: optionalText('typeId', QUEUE_LIMITS.id).describe('Task type id or name; omit for plain instructions.'),
    instructions: optionalText('instructions', QUEUE_LIMITS.instructions).describe('For a type without a template.'),
    variables: variables(),
  })
  .strict();

export const bulkRowInput = addTaskInput.omit({ projectId: true });

export const createTasksBulkInput = z
  .object({
    projectId: optionalProjectId(),
    tasks: z
      .array(z.unknown(), { error: 'tasks must be an array' })
      .min(1, { error: 'tasks is required and cannot be empty' })
      .max(QUEUE_LIMITS.bulk, { error: `tasks exceeds maximum of ${QUEUE_LIMITS.bulk} items per call; split the import` })
      .meta({ items: { type: 'object', properties: { typeId: { type: 'string' }, instructions: { type: 'string' }, variables: { type: 'object' } } } })
      .describe('Up to 1,000 rows like add_task.'),
  })
  .strict();

export const taskInput = z.object({ taskId: taskId() }).strict();

export const listTasksInput = z
  .object({
    projectId: optionalProjectId(),
    status: oneOf('status', TASK_STATUSES as unknown as [string, ...string[]]).describe('Only tasks with this status.'),
    typeId: optionalText('typeId', QUEUE_LIMITS.id).describe('Only tasks of this type (id or name).'),
    limit: boundedInt('limit', 1, QUEUE_LIMITS.listLimit, QUEUE_LIMITS.defaultListLimit).describe('1-200, default 50.'),
    offset: boundedInt('offset', 0, 1_000_000_000).describe('Skip this many.'),
  })
  .strict();

export const registerAgentInput = z
  .object({
    projectId: optionalProjectId(),
    agentName: optionalText('agentName', QUEUE_LIMITS.name, { identifier: true }).describe('Omit to be given a name.'),
    apiKey: optionalText('apiKey', QUEUE_LIMITS.apiKey, { identifier: true }).describe('To reconnect an agent registered before.'),
  })
  .strict();

export const agentInput = z.object({ projectId: optionalProjectId(), agentName: agentName(), apiKey: apiKey() }).strict();

export const completeTaskInput = z
  .object({
    taskId: taskId(),
    explanation: requiredText('explanation', QUEUE_LIMITS.explanation).describe('What was done.'),
    agentName: agentName(),
    apiKey: apiKey(),
  })
  .strict();

export const failTaskInput = z
  .object({
    taskId: taskId(),
    explanation: requiredText('explanation', QUEUE_LIMITS.explanation).describe('What went wrong.'),
    canRetry: flag('canRetry').describe('false if a retry cannot help (default true).'),
    agentName: agentName(),
    apiKey: apiKey(),
  })
  .strict();

export const extendLeaseInput = z
  .object({
    taskId: taskId(),
    additionalMinutes: z
      .number({ error: (i) => (i.input === undefined ? 'additionalMinutes is required' : 'additionalMinutes must be a number') })
      .superRefine((v, ctx) => {
        if (!Number.isFinite(v) || v < QUEUE_LIMITS.leaseMinutes.min || v > QUEUE_LIMITS.leaseMinutes.max) {
          ctx.addIssue({ code: 'custom', message: `additionalMinutes must be between ${QUEUE_LIMITS.leaseMinutes.min} and ${QUEUE_LIMITS.leaseMinutes.max} minutes` });
        }
      })
      .meta({ minimum: QUEUE_LIMITS.leaseMinutes.min, maximum: QUEUE_LIMITS.leaseMinutes.max })
      .describe('Minutes to add; fractions allowed.'),
    agentName: agentName(),
    apiKey: apiKey(),
  })
  .strict();

export const agentStatusInput = z
  .object({ projectId: optionalProjectId(), agentName: requiredText('agentName', QUEUE_LIMITS.name, { identifier: true }).describe('Agent name.') })
  .strict();

export const auditLogInput = z
  .object({
    projectId: optionalProjectId(),
    limit: boundedInt('limit', 1, QUEUE_LIMITS.listLimit, QUEUE_LIMITS.defaultListLimit).describe('1-200, default 50.'),
    before: boundedInt('before', 1, Number.MAX_SAFE_INTEGER).describe('nextBefore of the previous page.'),
  })
  .strict();

// ---- outputs (structuredContent) --------------------------------------------------------------

const nullableString = z.string().nullable();

export const projectOutput = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  status: z.enum(['active', 'closed']),
  createdAt: z.string(),
  updatedAt: z.string(),
  closedAt: nullableString,
  config: z.object({ defaultMaxRetries: z.number(), defaultLeaseDurationMinutes: z.number(), reaperIntervalMinutes: z.number() }),
  stats: z.object({
    totalTasks: z.number(),
    queuedTasks: z.number(),
    runningTasks: z.number(),
    completedTasks: z.number(),
    failedTasks: z.number(),
    cancelledTasks: z.number(),
  }),
});

export const taskTypeOutput = z.object({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  template: nullableString,
  variables: z.array(z.string()),
  duplicateHandling: z.enum(['ignore', 'fail', 'allow']),
  maxRetries: z.number(),
  leaseDurationMinutes: z.number(),
  createdAt: z.string(),
});

export const attemptOutput = z.object({
  id: z.string(),
  agentName: z.string(),
  startedAt: z.string(),
  completedAt: nullableString,
  status: z.enum(['running', 'completed', 'failed', 'timeout']),
  explanation: nullableString,
  failureReason: z.enum(['agent_reported', 'timeout', 'server_error']).nullable(),
  leaseExpiresAt: nullableString,
});

export const taskOutput = z.object({
  id: z.string(),
  projectId: z.string(),
  typeId: z.string(),
  instructions: z.string(),
  variables: z.record(z.string(), z.string()).nullable(),
  status: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
  assignedTo: nullableString,
  leaseExpiresAt: nullableString,
  retryCount: z.number(),
  maxRetries: z.number(),
  leaseDurationMinutes: z.number(),
  createdAt: z.string(),
  assignedAt: nullableString,
  completedAt: nullableString,
  result: nullableString,
  failureReason: z.enum(['agent_reported', 'timeout', 'server_error']).nullable(),
});

export const agentOutput = z.object({
  name: z.string(),
  projectId: z.string(),
  status: z.enum(['idle', 'working']),
  currentTaskId: nullableString,
  connectedAt: z.string(),
  lastSeen: z.string(),
  connected: z.boolean(),
});

export const projectResult = z.object({ project: projectOutput });
export const taskTypeResult = z.object({ taskType: taskTypeOutput });
export const agentResult = z.object({ agent: agentOutput });
export const projectsOutput = z.object({ projects: z.array(projectOutput) });
export const taskTypesOutput = z.object({ taskTypes: z.array(taskTypeOutput) });
export const addTaskOutput = z.object({ task: taskOutput, created: z.boolean().describe('false when an existing task with the same variables was returned (ignore)') });
export const bulkOutput = z.object({
  tasksCreated: z.number(),
  duplicatesIgnored: z.number(),
  errors: z.array(z.object({ index: z.number(), message: z.string() })),
  createdTasks: z.array(z.object({ id: z.string(), typeId: z.string(), status: z.string() })),
});
export const taskWithHistoryOutput = z.object({ task: taskOutput.extend({ attempts: z.array(attemptOutput) }) });
export const tasksOutput = z.object({ tasks: z.array(taskOutput), total: z.number() });
export const registerOutput = z.object({
  agent: agentOutput,
  apiKey: z.string().optional().describe('Shown once: keep it to reconnect. Absent on a reconnect.'),
  reconnected: z.boolean(),
});
export const currentTaskOutput = z.object({ task: taskOutput.nullable() });
export const requestTaskOutput = z.object({
  task: taskOutput.nullable(),
  alreadyAssigned: z.boolean().describe('true when this is the task you already hold'),
  reason: z.enum(['assigned', 'current', 'empty', 'closed']),
  retryAt: z.string().optional().describe('When empty: a task you failed waits for another agent until then'),
});
export const completeOutput = z.object({ task: taskOutput });
export const failOutput = z.object({ task: taskOutput, requeued: z.boolean() });
export const projectStatusOutput = z.object({
  project: projectOutput,
  agents: z.object({ total: z.number(), working: z.number(), idle: z.number(), list: z.array(agentOutput) }),
  oldestQueuedAt: nullableString,
  nextLeaseExpiresAt: nullableString,
});
export const historyOutput = z.object({ taskId: z.string(), attempts: z.array(attemptOutput) });
export const auditOutput = z.object({
  events: z.array(
    z.object({
      id: z.number(),
      projectId: z.string(),
      at: z.string(),
      actor: z.string(),
      action: z.string(),
      taskId: nullableString,
      agentName: nullableString,
      details: z.record(z.string(), z.unknown()).nullable(),
    }),
  ),
  nextBefore: z.number().nullable(),
});
