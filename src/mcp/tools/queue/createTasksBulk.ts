// create_tasks_bulk: Queue up to 1,000 tasks in one call; each row like add_task (TaskDriver specification, README "Tools").

import { createTasksBulkInput, bulkOutput } from '../../../core/queue/schemas';
import { APPENDS } from '../../toolRegistry';
import { toolSuccess } from '../../toolResult';
import { queueTool } from './deps';
import { MCP_OPERATOR } from './format';

export const createTasksBulk = queueTool('create_tasks_bulk', APPENDS, createTasksBulkInput, bulkOutput, {
  title: 'Create tasks in bulk',
  description: 'Queue up to 1,000 tasks in an open project; bad rows are reported by index, the rest created.',
  async run(queue, args, { session }) {
    const out = await queue.createTasksBulk(args, MCP_OPERATOR, session);
    const errors = out.errors.slice(0, 10).map((e) => `#${e.index}: ${e.message}`);
    const more = out.errors.length > 10 ? `\n(and ${out.errors.length - 10} more refused rows in structuredContent)` : '';
    return toolSuccess(
      `Created ${out.tasksCreated} tasks${out.duplicatesIgnored ? `, ${out.duplicatesIgnored} duplicates ignored` : ''}${out.errors.length ? `; ${out.errors.length} rows refused:\n${errors.join('\n')}${more}` : '.'}`,
      out,
    );
  },
});
