// Inputs and outputs of the review toolset (MCP Review Progress specification, README "Tools"): get_workflow, set_phase,
// start_agent, complete_agent, add_action, get_threads. Field names snake_case; descriptions are
// written for the model (product copy).

import * as z from 'zod';
import { boundedInt, flag, oneOf, optionalText, requiredOneOf, requiredText } from '../validation';
import { ACTION_KINDS } from './types';

export const REVIEW_LIMITS = { id: 100, name: 100, phase: 100, summary: 4_000, text: 10_000, note: 1_000, file: 1_000, context: 2_000, notes: 10_000, line: 10_000_000 } as const;
const L = REVIEW_LIMITS;

const reviewId = () =>
  optionalText('review_id', L.id, { identifier: true }).describe(
    'The review to act on, as get_workflow returned it; default: the review running in this project (required when several run).',
  );

export const getWorkflowInput = z
  .object({
    review_id: reviewId(),
    workflow: optionalText('workflow', L.name, { identifier: true }).describe(
      'Definition to start a review from: a file name (without extension) in .agent-progress/reviews/; default: the only one, or "default".',
    ),
    new_run: flag('new_run').describe('true: start a new review, even when one of the same merge request, branch or workflow exists.'),
    branch: optionalText('branch', L.context).describe("Branch under review: returns that branch's review, or starts one (overriding the definition's branch)."),
    merge_request: optionalText('merge_request', L.context).describe(
      'Merge or pull request under review (e.g. "!4748"): returns that one\'s review, or starts one; never another\'s.',
    ),
    notes: optionalText('notes', L.notes).describe('Free-text context for the agents, when starting a review.'),
  })
  .strict();

export const setPhaseInput = z
  .object({
    phase: requiredText('phase', L.phase, { identifier: true }).describe('The new phase, one of the review\'s phases (get_workflow lists them in order), e.g. "agents-running".'),
    force: flag('force').describe('true: allow a move backwards or out of completed/failed.'),
    note: optionalText('note', L.note).describe('Why, e.g. the reason for failed.'),
    review_id: reviewId(),
  })
  .strict();

export const startAgentInput = z
  .object({
    agent: requiredText('agent', L.name, { identifier: true }).describe('Agent (audit) name from get_workflow\'s list, e.g. "clean-architecture".'),
    review_id: reviewId(),
  })
  .strict();

export const completeAgentInput = z
  .object({
    agent: requiredText('agent', L.name, { identifier: true }).describe('Agent (audit) name, as passed to start_agent.'),
    status: oneOf('status', ['completed', 'failed'] as const).describe('completed (default) or failed.'),
    summary: optionalText('summary', L.summary).describe('What the audit found, in a few sentences. At most 4,000 characters.'),
    review_id: reviewId(),
  })
  .strict();

export const addActionInput = z
  .object({
    kind: requiredOneOf('kind', ACTION_KINDS).describe(
      'post_comment: a comment on the review as a whole (or on file/line); open_thread: a new thread on file and line; reply_thread, resolve_thread: on thread_id.',
    ),
    text: requiredText('text', L.text).describe('The comment, reply or resolution note, in Markdown. At most 10,000 characters.'),
    file: optionalText('file', L.file).describe('Path from the workspace root with / (open_thread needs it), e.g. "src/app.ts".'),
    line: boundedInt('line', 1, L.line).describe('1-based line in file (open_thread needs it).'),
    end_line: boundedInt('end_line', 1, L.line).describe('Last line of a range; default: line.'),
    thread_id: optionalText('thread_id', L.id, { identifier: true }).describe('Thread to reply to or resolve, from get_threads.'),
    agent: optionalText('agent', L.name, { identifier: true }).describe('The agent (audit) queueing it, shown to the person deciding.'),
    review_id: reviewId(),
  })
  .strict();

export const getThreadsInput = z
  .object({
    status: oneOf('status', ['open', 'resolved', 'all'] as const).describe('open (default), resolved or all.'),
    file: optionalText('file', L.file).describe('Only threads on this path (from the workspace root).'),
    review_id: reviewId(),
  })
  .strict();

const agentOut = z.object({
  name: z.string(),
  description: z.string().nullable(),
  state: z.enum(['pending', 'running', 'completed', 'failed']),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
  summary: z.string().nullable(),
  anomalies: z.array(z.string()),
});

const commentOut = z.object({ id: z.string(), author: z.string(), body: z.string(), created_at: z.string() });

export const threadOut = z.object({
  thread_id: z.string(),
  file: z.string().nullable(),
  line: z.number().nullable(),
  end_line: z.number().nullable(),
  status: z.enum(['open', 'resolved']),
  created_by: z.string(),
  created_at: z.string(),
  resolved_by: z.string().nullable(),
  resolved_at: z.string().nullable(),
  comments: z.array(commentOut),
});

export const actionOut = z.object({
  action_id: z.string(),
  kind: z.enum(ACTION_KINDS),
  target: z.object({ file: z.string().optional(), line: z.number().optional(), end_line: z.number().optional(), thread_id: z.string().optional() }),
  text: z.string(),
  status: z.enum(['pending', 'approved', 'dismissed']),
  created_by: z.string().nullable(),
  created_at: z.string(),
  edited: z.boolean(),
  decided_by: z.string().nullable(),
  decided_at: z.string().nullable(),
  note: z.string().nullable(),
  thread_id: z.string().nullable(),
});

const contextOut = z.object({ branch: z.string().nullable(), merge_request: z.string().nullable(), notes: z.string().nullable() });

export const getWorkflowOutput = z.object({
  review_id: z.string(),
  started: z.boolean().describe('true when this call started the review'),
  workflow: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  project_id: z.string(),
  phase: z.string(),
  phases: z.array(z.string()),
  agents: z.array(agentOut),
  next_agent: z.string().nullable(),
  context: contextOut,
  threads: z.array(threadOut),
  actions: z.array(actionOut),
  definition_file: z.string(),
});

export const setPhaseOutput = z.object({
  review_id: z.string(),
  previous_phase: z.string(),
  phase: z.string(),
  forced: z.boolean(),
  changed_at: z.string(),
});

export const agentResultOutput = z.object({
  review_id: z.string(),
  agent: agentOut,
  warnings: z.array(z.string()),
  next_agent: z.string().nullable(),
});

export const addActionOutput = z.object({
  review_id: z.string(),
  action: actionOut,
});

export const getThreadsOutput = z.object({
  review_id: z.string(),
  threads: z.array(threadOut),
});

export type GetWorkflowOutput = z.output<typeof getWorkflowOutput>;
export type SetPhaseOutput = z.output<typeof setPhaseOutput>;
export type AgentResultOutput = z.output<typeof agentResultOutput>;
export type AddActionOutput = z.output<typeof addActionOutput>;
export type GetThreadsOutput = z.output<typeof getThreadsOutput>;
export type ActionOut = z.output<typeof actionOut>;
export type ThreadOut = z.output<typeof threadOut>;
