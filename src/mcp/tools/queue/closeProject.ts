// close_project: Close a project: no task is assigned from then on; running tasks can still be completed (TaskDriver specification, README "Tools").

import { projectInput, projectResult } from '../../../core/queue/schemas';
import { IDEMPOTENT_WRITE, type ToolDefinition } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import type { QueueToolDeps } from './deps';
import { MCP_OPERATOR, countsLine } from './format';

export function registerCloseProject(deps: QueueToolDeps): ToolDefinition {
  return {
    name: 'close_project',
    title: 'Close project',
    description: 'Close a project: no new tasks, types, agents or assignments; running tasks can still finish.',
    input: projectInput,
    output: projectResult,
    annotations: { ...IDEMPOTENT_WRITE, destructiveHint: true },
    async handler(args, ctx) {
      const project = await (await deps.queue()).closeProject(args, MCP_OPERATOR, ctx.session);
      return toolSuccess(`Project ${project.id} is closed: no more tasks will be assigned (${countsLine(project)}).`, { project });
    },
  };
}
