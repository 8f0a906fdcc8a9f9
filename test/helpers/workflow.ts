// A WorkflowService on a temporary ledger, looking at a given workspace folder (never the
// repository the tests run from).

import * as path from 'node:path';
import { silentLogger } from '../../src/core/log';
import { Services } from '../../src/core/services';
import type { WorkflowService } from '../../src/core/workflow/workflowService';

export interface WorkflowHarness {
  services: Services;
  service: WorkflowService;
  dbPath: string;
  close(): Promise<void>;
}

export async function openWorkflow(ledgerDir: string, workspace: string): Promise<WorkflowHarness> {
  const dbPath = path.join(ledgerDir, 'data.db');
  const services = new Services({
    config: { dbPath, openai: { apiKey: undefined, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' } },
    logger: silentLogger,
    host: false,
    workspace,
  });
  const service = await services.workflow();
  return { services, service, dbPath, close: () => services.close() };
}

/** start_workflow then start_task, for tests about what happens during and after a task. */
export async function startOne(service: WorkflowService, task: Record<string, unknown> = {}): Promise<{ workflowId: string; taskId: string }> {
  const wf = await service.startWorkflow({ name: 'Test workflow' });
  const started = await service.startTask({ workflow_id: wf.workflow_id, name: 'Test task', goal: 'Change files', ...task });
  return { workflowId: wf.workflow_id, taskId: started.task_id };
}

export const OUTCOME = { summary: 'Done.' };
