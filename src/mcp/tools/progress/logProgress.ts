// log_progress: record a completed step in the project's shared log (Agent Progress Tracker specification, README "Tools").

import { logProgressInput, logProgressOutput } from '../../../core/progress/schemas';
import { APPENDS, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { ProgressToolDeps } from './deps';

export function registerLogProgress(deps: ProgressToolDeps): ToolDefinition {
  return {
    name: 'log_progress',
    title: 'Log progress',
    description:
      "Record what you just did in the project's shared progress log so that other agents and people can pick up from it. " +
      'Call after each meaningful step: what changed, where, why, and what is left. The project is created on first use. ' +
      "Returns the new entry's id. To read earlier work, use search_logs, then get_context.",
    input: logProgressInput,
    output: logProgressOutput,
    annotations: APPENDS,
    async handler(args) {
      const service = await deps.progress();
      const out = await service.logProgress(args);
      return toolSuccess(`Logged: ${out.title} (ID: ${out.id}) in project ${out.projectId}`, out);
    },
  };
}
