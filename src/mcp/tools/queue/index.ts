// The queue toolset (TaskDriver specification, README "Tools"): projects, task types, tasks, agents, status.

import type { ToolDefinition } from '../../toolRegistry';
import type { ToolsetDescriptor } from '../../toolset';
import { claimNextTask } from '../../prompts';
import { taskResource } from '../../resources';
import type { QueueToolDeps } from './deps';
import { registerAddTask } from './addTask';
import { registerCloseProject } from './closeProject';
import { registerCompleteTask } from './completeTask';
import { registerCreateProject } from './createProject';
import { registerCreateTaskType } from './createTaskType';
import { registerCreateTasksBulk } from './createTasksBulk';
import { registerExtendLease } from './extendLease';
import { registerFailTask } from './failTask';
import { registerGetAgentStatus } from './getAgentStatus';
import { registerGetAuditLog } from './getAuditLog';
import { registerGetCurrentTask } from './getCurrentTask';
import { registerGetProject } from './getProject';
import { registerGetProjectStatus } from './getProjectStatus';
import { registerGetTask } from './getTask';
import { registerGetTaskHistory } from './getTaskHistory';
import { registerGetTaskType } from './getTaskType';
import { registerJoinProject } from './joinProject';
import { registerListProjects } from './listProjects';
import { registerListTaskTypes } from './listTaskTypes';
import { registerListTasks } from './listTasks';
import { registerRegisterAgent } from './registerAgent';
import { registerRequestTask } from './requestTask';

export function queueTools(deps: QueueToolDeps): ToolDefinition[] {
  const tools = [
    registerCreateProject(deps),
    registerListProjects(deps),
    registerGetProject(deps),
    registerCloseProject(deps),
    registerJoinProject(deps),
    registerCreateTaskType(deps),
    registerListTaskTypes(deps),
    registerGetTaskType(deps),
    registerAddTask(deps),
    registerCreateTasksBulk(deps),
    registerGetTask(deps),
    registerListTasks(deps),
    registerRegisterAgent(deps),
    registerGetCurrentTask(deps),
    registerRequestTask(deps),
    registerCompleteTask(deps),
    registerFailTask(deps),
    registerExtendLease(deps),
    registerGetProjectStatus(deps),
    registerGetAgentStatus(deps),
    registerGetTaskHistory(deps),
    registerGetAuditLog(deps),
  ];
  // Their output schemas are listed to the top level (shallowOutput) to keep tools/list
  // within the toolset's budget; the JSON each tool returns says the rest.
  return tools.map((t) => ({ ...t, shallowOutput: true }));
}

/**
 * The queue toolset as the server, the README tool table and the token-budget bench read it: its
 * tools (listed above), its paragraph of the instructions, its prompts and resource kinds.
 */
export const queueToolset: ToolsetDescriptor = {
  tools: (services) => queueTools({ queue: () => services.queue() }),
  instructions: () =>
    'Task queue: join_project, register_agent once, then request_task; finish each task with complete_task or fail_task ' +
    'before requesting the next, and call extend_lease when work outlasts the lease.',
  prompts: [claimNextTask],
  resources: [taskResource],
};
