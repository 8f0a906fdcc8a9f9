// get_project_info: the projects the indexed sessions ran in, with their hashes (AgTrace specification, README "Tools").

import { getProjectInfoInput, getProjectInfoOutput } from '../../../core/traces/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import type { TraceToolDeps } from './deps';
import { traced } from './traceResult';

export function registerGetProjectInfo(deps: TraceToolDeps): ToolDefinition {
  return {
    name: 'get_project_info',
    title: 'List projects with agent sessions',
    description:
      'List the projects (folders) that agent sessions ran in: hash, folder, session count per provider and last activity, most recent first. ' +
      "Use a project's hash as list_sessions(project_hash) to see only its sessions.",
    input: getProjectInfoInput,
    output: getProjectInfoOutput,
    annotations: READ_ONLY,
    handler: (args) => traced('get_project_info', deps.logger, async () => (await deps.traces()).getProjectInfo(args)),
  };
}
