// What the workflow tools need, passed in explicitly: the service, opened on first use.

import type { WorkflowService } from '../../../core/workflow/workflowService';

export interface WorkflowToolDeps {
  workflow: () => Promise<WorkflowService>;
}
