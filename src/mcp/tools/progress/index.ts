// The progress toolset (Agent Progress Tracker specification, README "Tools"): log_progress, get_context, search_logs.

import type { ToolDefinition } from '../../toolRegistry';
import type { ToolsetDescriptor } from '../../toolset';
import { resumeFromLog } from '../../prompts';
import { entryResource } from '../../resources';
import type { ProgressToolDeps } from './deps';
import { registerGetContext } from './getContext';
import { registerLogProgress } from './logProgress';
import { registerSearchLogs } from './searchLogs';

export function progressTools(deps: ProgressToolDeps): ToolDefinition[] {
  return [registerLogProgress(deps), registerGetContext(deps), registerSearchLogs(deps)];
}

/**
 * The progress toolset as the server, the README tool table and the token-budget bench read it: its
 * tools (listed above), its paragraph of the instructions, its prompts and resource kinds.
 */
export const progressToolset: ToolsetDescriptor = {
  tools: (services) => progressTools({ progress: () => services.progress() }),
  instructions: (projectId) =>
    `Progress log: at the start of a task call search_logs (${projectId}) and get_context on the entries that matter; ` +
    'after each meaningful step call log_progress with what you did, where and why.',
  prompts: [resumeFromLog],
  resources: [entryResource],
};
