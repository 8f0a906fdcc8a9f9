// start_workflow: open a workflow, the container of tracked tasks (workflow-tracking protocol, README "Tools").

import { startWorkflowInput, startWorkflowOutput } from '../../../core/workflow/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { workflowTool } from './deps';

export const startWorkflow = workflowTool('startWorkflow', APPENDS, startWorkflowInput, startWorkflowOutput, {
  description:
    'Start tracking a piece of work made of several tasks (a feature, a migration, a refactor): a name, an optional description and an optional plan of steps. ' +
    'Call once at the beginning, then start_task for each task. Returns the workflow_id. People follow the workflow live in their editor.',
  answer: (out) => toolSuccess(`Started workflow ${out.workflow_id} in project ${out.project_id}. Next: start_task with workflow_id ${out.workflow_id}.`, out),
});
