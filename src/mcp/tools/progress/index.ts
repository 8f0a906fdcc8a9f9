// The progress toolset (seed progress-tracker): log_progress, get_context, search_logs.

import type { ToolDefinition } from '../../toolRegistry';
import type { ProgressToolDeps } from './deps';
import { registerGetContext } from './getContext';
import { registerLogProgress } from './logProgress';
import { registerSearchLogs } from './searchLogs';

export function progressTools(deps: ProgressToolDeps): ToolDefinition[] {
  return [registerLogProgress(deps), registerGetContext(deps), registerSearchLogs(deps)];
}
