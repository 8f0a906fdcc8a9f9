// log_decision: record an architectural decision of a running task (workflow-tracking protocol, README "Tools").

import { logDecisionInput, logDecisionOutput } from '../../../core/workflow/schemas';
import { APPENDS, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { WorkflowToolDeps } from './deps';

export function registerLogDecision(deps: WorkflowToolDeps): ToolDefinition {
  return {
    name: 'log_decision',
    title: 'Log decision',
    description:
      'Record an important decision made during a running task: a library choice, an architecture, a trade-off or a workaround, with the options considered and why. ' +
      'Only decisions with real alternatives (0-3 per task); not trivial ones such as naming. For problems met, use log_issue.',
    input: logDecisionInput,
    output: logDecisionOutput,
    annotations: APPENDS,
    async handler(args) {
      const out = await (await deps.workflow()).logDecision(args);
      return toolSuccess(`Logged decision ${out.decision_id} on task ${out.task_id}.`, out);
    },
  };
}
