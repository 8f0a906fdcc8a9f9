// log_issue: record a problem met during a running task (workflow-tracking protocol, README "Tools").

import { logIssueInput, logIssueOutput } from '../../../core/workflow/schemas';
import { APPENDS, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { WorkflowToolDeps } from './deps';

export function registerLogIssue(deps: WorkflowToolDeps): ToolDefinition {
  return {
    name: 'log_issue',
    title: 'Log issue',
    description:
      'Record a problem met during a running task (missing documentation, a bug in a dependency, a version conflict, an unclear requirement) and how you resolved or worked around it. ' +
      'Set requires_human_review when a person should check the resolution: their editor shows a notification. For choices between options, use log_decision.',
    input: logIssueInput,
    output: logIssueOutput,
    annotations: APPENDS,
    async handler(args) {
      const out = await (await deps.workflow()).logIssue(args);
      const review = out.requires_human_review ? ' A person was asked to review it.' : '';
      return toolSuccess(`Logged issue ${out.issue_id} on task ${out.task_id}.${review}`, out);
    },
  };
}
