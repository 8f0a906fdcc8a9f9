// close_project: Close a project: no task is assigned from then on; running tasks can still be completed (TaskDriver specification, README "Tools").

import { projectInput, projectResult } from '../../../core/queue/schemas';
import { IDEMPOTENT_WRITE } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';
import { MCP_OPERATOR, countsLine } from './format';

export const closeProject = queueTool('close_project', { ...IDEMPOTENT_WRITE, destructiveHint: true }, projectInput, projectResult, {
  description: 'Close a project: no new tasks, types, agents or assignments; running tasks can still finish.',
  async run(queue, args, { session }) {
    const project = await queue.closeProject(args, MCP_OPERATOR, session);
    return toolSuccess(`Project ${project.id} is closed: no more tasks will be assigned (${countsLine(project)}).`, { project });
  },
});
