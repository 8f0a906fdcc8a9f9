// The review toolset (MCP Review Progress specification, README "Tools"): get_workflow, set_phase, start_agent,
// complete_agent, add_action, get_threads. The specification's names, kept exactly.

import type { ToolDefinition } from '../../toolRegistry';
import type { ToolsetDescriptor } from '../../toolset';
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

/**
 * The review toolset as the server, the README tool table and the token-budget bench read it: its
 * tools (listed above), its paragraph of the instructions, its prompts and resource kinds.
 */
export const reviewToolset: ToolsetDescriptor = {
  tools: (services) => reviewTools({ review: () => services.review() }),
  instructions: () =>
    'Review: call get_workflow first (it starts the review from .agent-progress/reviews/ and lists the agents in order), ' +
    'set_phase agents-running, then start_agent and complete_agent around each audit, set_phase synthesizing, publishing, completed; ' +
    'queue comments and thread changes with add_action (a person approves them) and read open threads with get_threads.',
  prompts: [],
  resources: [],
};
