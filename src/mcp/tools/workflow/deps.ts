// What the workflow tools are written with: each is the WorkflowService method of its name
// (methodTools), opened on first use.

import type { WorkflowService } from '../../../core/workflow/workflowService';
import { methodTools } from '../../serviceTool';

export const workflowTool = methodTools<WorkflowService>();
