// The queue toolset (seed taskdriver): projects, task types, tasks, agents, status.

import type { ToolDefinition } from '../../toolRegistry';
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
  return [
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
}
