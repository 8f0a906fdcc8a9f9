// log_decision: record an architectural decision of a running task (workflow-tracking protocol, README "Tools").

import { logDecisionInput, logDecisionOutput } from '../../../core/workflow/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { workflowTool } from './deps';

export const logDecision = workflowTool('logDecision', APPENDS, logDecisionInput, logDecisionOutput, {
  description:
    'Record an important decision made during a running task: a library choice, an architecture, a trade-off or a workaround, with the options considered and why. ' +
    'Only decisions with real alternatives (0-3 per task); not trivial ones such as naming. For problems met, use log_issue.',
  answer: (out) => toolSuccess(`Logged decision ${out.decision_id} on task ${out.task_id}.`, out),
});
