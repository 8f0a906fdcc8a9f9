// Inputs and outputs of the progress toolset (Agent Progress Tracker specification, README "Tools"), with the specification's limits
// and messages. The descriptions are written for the model: they are product copy.

import * as z from 'zod';
import { boundedInt, flag, isoDate, labelList, optionalText, requiredText } from '../validation';
import { LIMITS } from './limits';

export { LIMITS };

const projectId = () =>
  requiredText('projectId', LIMITS.projectId, { identifier: true }).describe(
    'Project identifier, normally the repository name (e.g. "mobile-app"). Every entry belongs to one project.',
  );

export const logProgressInput = z
  .object({
    projectId: requiredText('projectId', LIMITS.projectId, { identifier: true }).describe(
      'Project identifier, normally the repository name (e.g. "mobile-app"). Created on first use.',
    ),
    title: requiredText('title', LIMITS.title).describe('Short title of what was done, at most 100 characters.'),
    content: requiredText('content', LIMITS.content).describe(
      'What was done and how: files changed, decisions, results, what is left. At most 10,000 characters; Markdown is fine.',
    ),
    tags: labelList('tags', LIMITS.tags, LIMITS.tag).optional().describe('Optional tags for filtering later, e.g. ["auth", "refactor"]. At most 10, each at most 50 characters.'),
    agentId: optionalText('agentId', LIMITS.agentId, { identifier: true }).describe(
      'Optional name of the agent logging this, e.g. "copilot" or "claude-code". At most 100 characters.',
    ),
  })
  .strict();

export const logProgressOutput = z.object({
  id: z.string().describe('Unique ID assigned to this log entry'),
  projectId: z.string(),
  title: z.string(),
  createdAt: z.string().describe('ISO 8601 timestamp'),
});

export const getContextInput = z
  .object({
    projectId: projectId(),
    id: requiredText('id', LIMITS.entryId, { identifier: true }).describe('The 12-character ID of the entry, as returned by log_progress or search_logs.'),
    includeFull: flag('includeFull').describe('If true, also return the full content. Default false: the summary is usually enough.'),
  })
  .strict();

export const summarySources = ['sampling', 'openai', 'language-model', 'fallback'] as const;

export const getContextOutput = z.object({
  id: z.string(),
  projectId: z.string(),
  title: z.string(),
  summary: z.string().describe('Summary of the work (2-3 sentences)'),
  content: z.string().optional().describe('Full content (only if includeFull=true)'),
  createdAt: z.string(),
  tags: z.array(z.string()),
  agentId: z.string().nullable().optional().describe('Agent that logged the entry, if it said'),
  summarySource: z
    .enum(summarySources)
    .optional()
    .describe(
      "Who wrote the summary: the client model (sampling), an OpenAI-compatible endpoint, the editor's language model, or an extract of the content (fallback, not cached)",
    ),
});

export const searchLogsInput = z
  .object({
    projectId: projectId(),
    query: optionalText('query', LIMITS.query).describe('Text to find in titles (case-insensitive substring match).'),
    tags: labelList('tags', LIMITS.tags, LIMITS.tag).optional().describe('Only entries that have ALL of these tags (case-insensitive).'),
    startDate: isoDate('startDate').describe('ISO 8601 date or date-time: entries created on or after it. A date alone means 00:00 UTC.'),
    endDate: isoDate('endDate').describe('ISO 8601 date or date-time: entries created on or before it. A date alone includes that whole day (UTC).'),
    limit: boundedInt('limit', 1, LIMITS.searchLimit, LIMITS.defaultSearchLimit).describe('Maximum number of results, 1-100. Default 20.'),
    text: optionalText('text', LIMITS.text).describe(
      'Optional full-text search over titles AND content, ranked by relevance instead of date. Words are ANDed; "a phrase", prefix*, OR and -exclude work.',
    ),
  })
  .strict();

export const searchLogsOutput = z.object({
  entries: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      createdAt: z.string(),
      tags: z.array(z.string()),
    }),
  ),
  total: z.number().int().describe('Total matching entries (before limit)'),
});

export type LogProgressInput = z.output<typeof logProgressInput>;
export type GetContextInput = z.output<typeof getContextInput>;
export type SearchLogsInput = z.output<typeof searchLogsInput>;
export type LogProgressOutput = z.output<typeof logProgressOutput>;
export type GetContextOutput = z.output<typeof getContextOutput>;
export type SearchLogsOutput = z.output<typeof searchLogsOutput>;
