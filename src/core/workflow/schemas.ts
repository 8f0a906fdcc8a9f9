// Inputs and outputs of the workflow toolset (workflow-tracking protocol, README "Tools"), with its enums
// checked strictly and its field names kept (snake_case). The descriptions are written for the
// model: they are product copy.

import * as z from 'zod';
import { codePointLength, unstorableReason } from '../text';
import { flag, labelList, optionalText, requiredOneOf, requiredText, textList } from '../validation';
import { DECISION_CATEGORIES, ISSUE_TYPES, TASK_OUTCOMES, TESTS_STATUSES } from './types';

export const WORKFLOW_LIMITS = {
  id: 100,
  projectId: 100,
  workflowName: 200,
  workflowDescription: 5_000,
  planSteps: 50,
  step: 200,
  stepGoal: 1_000,
  taskName: 200,
  goal: 2_000,
  areas: 20,
  area: 200,
  question: 500,
  options: 20,
  option: 200,
  chosen: 500,
  reasoning: 2_000,
  tradeOffs: 2_000,
  issueText: 4_000,
  message: 200,
  metadataChars: 10_000,
  summary: 4_000,
  listItems: 50,
  listItem: 500,
  reviewReason: 2_000,
  packages: 100,
  packageName: 200,
  commands: 100,
  command: 1_000,
} as const;

function typeError(name: string, expected: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? `${name} is required` : `${name} must be ${expected}`);
}

/**
 * An object argument whose unknown fields are refused with their own path and the accepted ones
 * (parseInput names only the top level's), advertised with additionalProperties false.
 */
function nestedObject<S extends z.ZodRawShape>(name: string, shape: S) {
  const known = Object.keys(shape);
  return z
    .object(shape, { error: typeError(name, 'an object') })
    .loose()
    .superRefine((value, ctx) => {
      const unknown = Object.keys(value).filter((k) => !known.includes(k));
      if (unknown.length > 0) {
        const shown = unknown.slice(0, 3).map((k) => JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}…` : k));
        ctx.addIssue({ code: 'custom', message: `Unknown field${unknown.length > 1 ? 's' : ''} ${shown.join(', ')} in ${name}; accepted: ${known.join(', ')}` });
      }
    })
    .transform((value) => {
      const out: Record<string, unknown> = {};
      for (const k of known) if (value[k as keyof typeof value] !== undefined) out[k] = value[k as keyof typeof value];
      return out as z.output<z.ZodObject<S>>;
    })
    .meta({ additionalProperties: false });
}

/** A free JSON object (milestone metadata), at most `max` characters once serialised. */
function jsonObject(name: string, max: number) {
  return z
    .record(z.string(), z.unknown(), { error: typeError(name, 'a JSON object') })
    .superRefine((value, ctx) => {
      let text: string;
      try {
        text = JSON.stringify(value);
      } catch {
        ctx.addIssue({ code: 'custom', message: `${name} must be plain JSON` });
        return;
      }
      if (codePointLength(text) > max) ctx.addIssue({ code: 'custom', message: `${name} exceeds maximum size of ${max} characters once serialised as JSON` });
    })
    .optional();
}

function percent(name: string) {
  return z
    .number({ error: typeError(name, 'a number from 0 to 100') })
    .superRefine((value, ctx) => {
      if (!Number.isFinite(value) || value < 0 || value > 100) ctx.addIssue({ code: 'custom', message: `${name} must be between 0 and 100` });
    })
    .meta({ minimum: 0, maximum: 100 })
    .optional();
}

const L = WORKFLOW_LIMITS;

/** The plan of start_workflow: [{step, goal}], each checked with its index in the message. */
function planSteps() {
  const fields = [
    ['step', L.step],
    ['goal', L.stepGoal],
  ] as const;
  return z
    .array(z.unknown(), { error: typeError('plan', 'an array of {step, goal} objects') })
    .superRefine((items, ctx) => {
      if (items.length > L.planSteps) {
        ctx.addIssue({ code: 'custom', message: `plan exceeds maximum of ${L.planSteps} steps` });
        return;
      }
      items.forEach((item, i) => {
        const at = `plan[${i}]`;
        if (typeof item !== 'object' || item === null || Array.isArray(item)) {
          ctx.addIssue({ code: 'custom', message: `${at} must be an object {step, goal}` });
          return;
        }
        const record = item as Record<string, unknown>;
        const unknown = Object.keys(record).filter((k) => k !== 'step' && k !== 'goal');
        if (unknown.length > 0) ctx.addIssue({ code: 'custom', message: `Unknown field ${JSON.stringify(unknown[0]!.slice(0, 40))} in ${at}; accepted: step, goal` });
        for (const [field, max] of fields) {
          const value = record[field];
          const label = `${at}.${field}`;
          if (value === undefined) ctx.addIssue({ code: 'custom', message: `${label} is required` });
          else if (typeof value !== 'string') ctx.addIssue({ code: 'custom', message: `${label} must be a string` });
          else if (value.trim() === '') ctx.addIssue({ code: 'custom', message: `${label} is required and cannot be empty` });
          else if (codePointLength(value) > max) ctx.addIssue({ code: 'custom', message: `${label} exceeds maximum length of ${max} characters` });
          else {
            const bad = unstorableReason(value);
            if (bad) ctx.addIssue({ code: 'custom', message: `${label} ${bad}` });
          }
        }
      });
    })
    .transform((items) => (items as { step: string; goal: string }[]).map((i) => ({ step: i.step, goal: i.goal })))
    .meta({
      type: 'array',
      maxItems: L.planSteps,
      items: {
        type: 'object',
        properties: {
          step: { type: 'string', minLength: 1, maxLength: L.step, description: 'Step label or number, e.g. "1" or "Install NextAuth v5".' },
          goal: { type: 'string', minLength: 1, maxLength: L.stepGoal, description: 'What this step achieves.' },
        },
        required: ['step', 'goal'],
        additionalProperties: false,
      },
    })
    .optional();
}

const id = (name: string, what: string) => requiredText(name, L.id, { identifier: true }).describe(what);

export const startWorkflowInput = z
  .object({
    name: requiredText('name', L.workflowName).describe('Short workflow name, e.g. "Auth system refactor". At most 200 characters.'),
    description: optionalText('description', L.workflowDescription).describe('What the workflow is meant to achieve, in a few sentences. At most 5,000 characters.'),
    plan: planSteps().describe('Optional implementation plan as ordered steps, each {step, goal}. At most 50 steps.'),
    project_id: optionalText('project_id', L.projectId, { identifier: true }).describe(
      "Optional project identifier; default: this server's project (the repository name). Created on first use.",
    ),
  })
  .strict();

export const startWorkflowOutput = z.object({
  workflow_id: z.string().describe('ID of the new workflow: pass it to start_task'),
  project_id: z.string(),
  created_at: z.string().describe('ISO 8601 timestamp'),
});

export const startTaskInput = z
  .object({
    workflow_id: id('workflow_id', 'ID of the workflow this task belongs to, as start_workflow returned it.'),
    parent_task_id: optionalText('parent_task_id', L.id, { identifier: true }).describe(
      'ID of the parent task when this is a subtask (subtasks nest to any depth); omit for a top-level task.',
    ),
    name: requiredText('name', L.taskName).describe('Task name, e.g. "Implement Stripe integration". At most 200 characters.'),
    goal: requiredText('goal', L.goal).describe('The precise goal of this task. At most 2,000 characters.'),
    areas: labelList('areas', L.areas, L.area)
      .optional()
      .describe(
        'Code areas this task will touch, checked at complete_task: a name matches a folder or file name anywhere ("auth" matches src/auth/x.ts and auth.ts), ' +
          'a path matches that folder ("src/api"), a glob matches paths ("src/**/*.test.ts", "*.md"). At most 20.',
      ),
  })
  .strict();

export const startTaskOutput = z.object({
  task_id: z.string().describe('ID of the new task: pass it to log_decision, log_issue, log_milestone and complete_task'),
  workflow_id: z.string(),
  parent_task_id: z.string().nullable(),
  snapshot_id: z.string().describe('ID of the snapshot of the files taken now'),
  snapshot_type: z.enum(['git', 'checksum', 'none']).describe('git: HEAD plus the working tree; checksum: file checksums outside git; none: no snapshot (see warnings)'),
  started_at: z.string().describe('ISO 8601 timestamp'),
  repository: z.string().nullable().describe('Absolute path of the repository (git) or folder (checksum) the snapshot covers'),
  head: z.string().nullable().describe('git: the commit HEAD named, null without commits'),
  warnings: z.array(z.string()),
});

const taskId = () => id('task_id', 'ID of the task, as start_task returned it.');

export const logDecisionInput = z
  .object({
    task_id: taskId(),
    category: requiredOneOf('category', DECISION_CATEGORIES).describe('Kind of decision: architecture, library_choice, trade_off, workaround or other.'),
    question: requiredText('question', L.question).describe('The question decided, e.g. "Which auth library to use?"'),
    options_considered: labelList('options_considered', L.options, L.option).optional().describe('Options evaluated, e.g. ["NextAuth", "Clerk", "Custom"]. At most 20.'),
    chosen: requiredText('chosen', L.chosen).describe('The option chosen.'),
    reasoning: requiredText('reasoning', L.reasoning).describe('Why this choice, in 1-2 sentences.'),
    trade_offs: optionalText('trade_offs', L.tradeOffs).describe('Compromises accepted (optional).'),
  })
  .strict();

export const logDecisionOutput = z.object({
  decision_id: z.string(),
  task_id: z.string(),
  created_at: z.string(),
});

export const logIssueInput = z
  .object({
    task_id: taskId(),
    type: requiredOneOf('type', ISSUE_TYPES).describe('Kind of issue: documentation_gap, bug_encountered, dependency_conflict, unclear_requirement or other.'),
    description: requiredText('description', L.issueText).describe('What the problem was.'),
    resolution: requiredText('resolution', L.issueText).describe('How it was resolved or worked around.'),
    requires_human_review: flag('requires_human_review').describe('true if a person should review this resolution: the editor shows them a notification. Default false.'),
  })
  .strict();

export const logIssueOutput = z.object({
  issue_id: z.string(),
  task_id: z.string(),
  created_at: z.string(),
  requires_human_review: z.boolean(),
});

export const logMilestoneInput = z
  .object({
    task_id: taskId(),
    message: requiredText('message', L.message).describe('Short message, e.g. "Running tests...". At most 200 characters.'),
    progress: percent('progress').describe('Estimated progress of the task, 0-100 (optional; drives the progress bar people see).'),
    metadata: jsonObject('metadata', L.metadataChars).describe('Optional additional data as a JSON object, e.g. {"test_suite": "auth"}. At most 10,000 characters.'),
  })
  .strict();

export const logMilestoneOutput = z.object({
  milestone_id: z.string(),
  task_id: z.string(),
  created_at: z.string(),
  progress: z.number().nullable(),
});

export const completeTaskInput = z
  .object({
    task_id: taskId(),
    status: requiredOneOf('status', TASK_OUTCOMES).describe('How the task ended: success, partial_success or failed.'),
    outcome: nestedObject('outcome', {
      summary: requiredText('outcome.summary', L.summary).describe('What was accomplished, in 2-4 sentences.'),
      achievements: textList('outcome.achievements', L.listItems, L.listItem).optional().describe('Concrete achievements (empty array if none).'),
      limitations: textList('outcome.limitations', L.listItems, L.listItem).optional().describe('Limitations or compromises (empty array if none).'),
      manual_review_needed: flag('outcome.manual_review_needed').describe('true if a person must review before work continues: the editor notifies them.'),
      manual_review_reason: optionalText('outcome.manual_review_reason', L.reviewReason).describe('Why a manual review is needed.'),
      next_steps: textList('outcome.next_steps', L.listItems, L.listItem).optional().describe('Suggested next steps (optional).'),
    }).describe('The outcome: summary (required), achievements, limitations, manual_review_needed, manual_review_reason, next_steps.'),
    metadata: nestedObject('metadata', {
      packages_added: textList('metadata.packages_added', L.packages, L.packageName).optional().describe('Packages added.'),
      packages_removed: textList('metadata.packages_removed', L.packages, L.packageName).optional().describe('Packages removed.'),
      commands_executed: textList('metadata.commands_executed', L.commands, L.command).optional().describe('Commands run, e.g. "npm test".'),
      tests_status: requiredOneOf('metadata.tests_status', TESTS_STATUSES).optional().describe('passed, failed or not_run.'),
    })
      .optional()
      .describe('Optional facts: packages_added, packages_removed, commands_executed, tests_status.'),
  })
  .strict();

const renamed = z.object({ from: z.string(), to: z.string(), similarity: z.number().describe('Content similarity in percent') });

export const completeTaskOutput = z.object({
  task_id: z.string(),
  status: z.enum(TASK_OUTCOMES),
  duration_seconds: z.number().int().describe('Seconds from start_task to complete_task'),
  files_changed: z
    .object({
      added: z.array(z.string()),
      modified: z.array(z.string()),
      deleted: z.array(z.string()),
      renamed: z.array(renamed).describe('Files moved (and perhaps edited), listed here only'),
    })
    .describe(
      'What the task changed, paths relative to the repository root: commits made during the task, uncommitted edits and new untracked files; changes present before the task are not counted',
    ),
  verification: z.object({
    scope_match: z
      .boolean()
      .nullable()
      .describe('true: every changed file is inside the areas declared at start_task; false: unexpected_files are not; null: not checked (scope_checked false)'),
    scope_checked: z.boolean().describe('false when there was nothing to check against: no areas declared at start_task, or the files changed are unknown (warnings say why)'),
    unexpected_files: z.array(z.string()),
    warnings: z.array(z.string()),
  }),
  commits: z.array(z.object({ sha: z.string(), subject: z.string() })).describe('git: commits made during the task (at most 50)'),
});

export type StartWorkflowInput = z.output<typeof startWorkflowInput>;
export type StartTaskInput = z.output<typeof startTaskInput>;
export type LogDecisionInput = z.output<typeof logDecisionInput>;
export type LogIssueInput = z.output<typeof logIssueInput>;
export type LogMilestoneInput = z.output<typeof logMilestoneInput>;
export type CompleteTaskInput = z.output<typeof completeTaskInput>;
export type StartWorkflowOutput = z.output<typeof startWorkflowOutput>;
export type StartTaskOutput = z.output<typeof startTaskOutput>;
export type LogDecisionOutput = z.output<typeof logDecisionOutput>;
export type LogIssueOutput = z.output<typeof logIssueOutput>;
export type LogMilestoneOutput = z.output<typeof logMilestoneOutput>;
export type CompleteTaskOutput = z.output<typeof completeTaskOutput>;
