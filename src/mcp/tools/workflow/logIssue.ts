// log_issue: record a problem met during a running task (workflow-tracking protocol, README "Tools").

import { logIssueInput, logIssueOutput } from '../../../core/workflow/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { workflowTool } from './deps';

export const logIssue = workflowTool('logIssue', APPENDS, logIssueInput, logIssueOutput, {
  description:
    'Record a problem met during a running task (missing documentation, a bug in a dependency, a version conflict, an unclear requirement) and how you resolved or worked around it. ' +
    'Set requires_human_review when a person should check the resolution: their editor shows a notification. For choices between options, use log_decision.',
  answer(out) {
    const review = out.requires_human_review ? ' A person was asked to review it.' : '';
    return toolSuccess(`Logged issue ${out.issue_id} on task ${out.task_id}.${review}`, out);
  },
});
