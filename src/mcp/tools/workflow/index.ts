// The workflow toolset (workflow-tracking protocol, README "Tools"): start_workflow, start_task,
// log_decision, log_issue, log_milestone, complete_task. complete_task is also a queue tool, so
// this toolset and queue never share a server (toolsets.ts refuses the pair).

import type { ToolsetDescriptor } from '../../toolset';
import { startTrackedTask } from '../../prompts';
import { workflowResource } from '../../resources';
import { completeTask } from './completeTask';
import { logDecision } from './logDecision';
import { logIssue } from './logIssue';
import { logMilestone } from './logMilestone';
import { startTask } from './startTask';
import { startWorkflow } from './startWorkflow';

/** Its tools, in the order tools/list gives them. */
export const WORKFLOW_TOOLS = [startWorkflow, startTask, logDecision, logIssue, logMilestone, completeTask];

/**
 * The workflow toolset as the server, the README tool table and the token-budget bench read it: its
 * tools (listed above), its paragraph of the instructions, its prompts and resource kinds.
 */
export const workflowToolset: ToolsetDescriptor = {
  tools: (services) => WORKFLOW_TOOLS.map((make) => make(() => services.workflow())),
  instructions: () =>
    'Workflows: start_workflow for multi-step work, start_task before changing files, log_decision / log_issue / ' +
    'log_milestone as you go, and complete_task, which records the files the task changed.',
  prompts: [startTrackedTask],
  resources: [workflowResource],
};
