// The queue toolset (TaskDriver specification, README "Tools"): projects, task types, tasks, agents, status.

import type { ToolsetDescriptor } from '../../toolset';
import { claimNextTask } from '../../prompts';
import { taskResource } from '../../resources';
import { addTask } from './addTask';
import { closeProject } from './closeProject';
import { completeTask } from './completeTask';
import { createProject } from './createProject';
import { createTaskType } from './createTaskType';
import { createTasksBulk } from './createTasksBulk';
import { extendLease } from './extendLease';
import { failTask } from './failTask';
import { getAgentStatus } from './getAgentStatus';
import { getAuditLog } from './getAuditLog';
import { getCurrentTask } from './getCurrentTask';
import { getProject } from './getProject';
import { getProjectStatus } from './getProjectStatus';
import { getTask } from './getTask';
import { getTaskHistory } from './getTaskHistory';
import { getTaskType } from './getTaskType';
import { joinProject } from './joinProject';
import { listProjects } from './listProjects';
import { listTaskTypes } from './listTaskTypes';
import { listTasks } from './listTasks';
import { registerAgent } from './registerAgent';
import { requestTask } from './requestTask';

/** Its tools, in the order tools/list gives them. */
export const QUEUE_TOOLS = [
  createProject,
  listProjects,
  getProject,
  closeProject,
  joinProject,
  createTaskType,
  listTaskTypes,
  getTaskType,
  addTask,
  createTasksBulk,
  getTask,
  listTasks,
  registerAgent,
  getCurrentTask,
  requestTask,
  completeTask,
  failTask,
  extendLease,
  getProjectStatus,
  getAgentStatus,
  getTaskHistory,
  getAuditLog,
];

/**
 * The queue toolset as the server, the README tool table and the token-budget bench read it: its
 * tools (listed above), its paragraph of the instructions, its prompts and resource kinds.
 */
export const queueToolset: ToolsetDescriptor = {
  // Their output schemas are listed to the top level (shallowOutput) to keep tools/list within the
  // toolset's budget; the JSON each tool returns says the rest.
  tools: (services) => QUEUE_TOOLS.map((make) => ({ ...make(() => services.queue()), shallowOutput: true })),
  instructions: () =>
    'Task queue: join_project, register_agent once, then request_task; finish each task with complete_task or fail_task ' +
    'before requesting the next, and call extend_lease when work outlasts the lease.',
  prompts: [claimNextTask],
  resources: [taskResource],
};
