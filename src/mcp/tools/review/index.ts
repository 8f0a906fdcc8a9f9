// The review toolset (seed review-progress): get_workflow, set_phase, start_agent,
// complete_agent, add_action, get_threads. The seed's names, kept exactly.

import type { ToolDefinition } from '../../toolRegistry';
import { registerAddAction } from './addAction';
import { registerCompleteAgent } from './completeAgent';
import type { ReviewToolDeps } from './deps';
import { registerGetThreads } from './getThreads';
import { registerGetWorkflow } from './getWorkflow';
import { registerSetPhase } from './setPhase';
import { registerStartAgent } from './startAgent';

export function reviewTools(deps: ReviewToolDeps): ToolDefinition[] {
  return [registerGetWorkflow(deps), registerSetPhase(deps), registerStartAgent(deps), registerCompleteAgent(deps), registerAddAction(deps), registerGetThreads(deps)];
}
