// log_milestone: a short live update of a running task for people watching (workflow-tracking protocol, README "Tools").

import { logMilestoneInput, logMilestoneOutput } from '../../../core/workflow/schemas';
import { APPENDS, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { WorkflowToolDeps } from './deps';

export function registerLogMilestone(deps: WorkflowToolDeps): ToolDefinition {
  return {
    name: 'log_milestone',
    title: 'Log milestone',
    description:
      'Tell the people watching where a running task stands: a short message ("Running tests...") and, optionally, an estimated progress from 0 to 100 that drives their progress bar. ' +
      'Cheap; at most about 5 per task. Decisions and problems go to log_decision and log_issue.',
    input: logMilestoneInput,
    output: logMilestoneOutput,
    annotations: APPENDS,
    async handler(args) {
      const out = await (await deps.workflow()).logMilestone(args);
      return toolSuccess(`Milestone logged on task ${out.task_id}${out.progress !== null ? ` (${out.progress}%)` : ''}.`, out);
    },
  };
}
