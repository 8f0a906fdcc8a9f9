// The review toolset (MCP Review Progress specification, README "Tools"): get_workflow, set_phase, start_agent,
// complete_agent, add_action, get_threads. The specification's names, kept exactly.

import type { ToolsetDescriptor } from '../../toolset';
import { addAction } from './addAction';
import { completeAgent } from './completeAgent';
import { getThreads } from './getThreads';
import { getWorkflow } from './getWorkflow';
import { setPhase } from './setPhase';
import { startAgent } from './startAgent';

/** Its tools, in the order tools/list gives them. */
export const REVIEW_TOOLS = [getWorkflow, setPhase, startAgent, completeAgent, addAction, getThreads];

/**
 * The review toolset as the server, the README tool table and the token-budget bench read it: its
 * tools (listed above), its paragraph of the instructions, its prompts and resource kinds.
 */
export const reviewToolset: ToolsetDescriptor = {
  tools: (services) => REVIEW_TOOLS.map((make) => make(() => services.review())),
  instructions: () =>
    'Review: call get_workflow first (it starts the review from .agent-progress/reviews/ and lists the agents in order), ' +
    'set_phase agents-running, then start_agent and complete_agent around each audit, set_phase synthesizing, publishing, completed; ' +
    'queue comments and thread changes with add_action (a person approves them) and read open threads with get_threads.',
  prompts: [],
  resources: [],
};
