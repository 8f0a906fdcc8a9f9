// The workflow toolset (seed workflow-tracking-protocol): start_workflow, start_task,
// log_decision, log_issue, log_milestone, complete_task. complete_task is also a queue tool, so
// this toolset and queue never share a server (toolsets.ts refuses the pair).

import type { ToolDefinition } from '../../toolRegistry';
import { registerCompleteTask } from './completeTask';
import type { WorkflowToolDeps } from './deps';
import { registerLogDecision } from './logDecision';
import { registerLogIssue } from './logIssue';
import { registerLogMilestone } from './logMilestone';
import { registerStartTask } from './startTask';
import { registerStartWorkflow } from './startWorkflow';

export function workflowTools(deps: WorkflowToolDeps): ToolDefinition[] {
  return [
    registerStartWorkflow(deps),
    registerStartTask(deps),
    registerLogDecision(deps),
    registerLogIssue(deps),
    registerLogMilestone(deps),
    registerCompleteTask(deps),
  ];
}
