// log_milestone: a short live update of a running task for people watching (workflow-tracking protocol, README "Tools").

import { logMilestoneInput, logMilestoneOutput } from '../../../core/workflow/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { workflowTool } from './deps';

export const logMilestone = workflowTool('logMilestone', APPENDS, logMilestoneInput, logMilestoneOutput, {
  description:
    'Tell the people watching where a running task stands: a short message ("Running tests...") and, optionally, an estimated progress from 0 to 100 that drives their progress bar. ' +
    'Cheap; at most about 5 per task. Decisions and problems go to log_decision and log_issue.',
  answer: (out) => toolSuccess(`Milestone logged on task ${out.task_id}${out.progress !== null ? ` (${out.progress}%)` : ''}.`, out),
});
