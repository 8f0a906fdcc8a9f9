// createServer(): an MCP server for the chosen toolsets over the shared services, apart from any
// transport so tests can connect it in memory and main.ts over stdio.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '../core/log';
import type { Services } from '../core/services';
import { samplingProvider } from './sampling';
import { installTools } from './toolRegistry';
import { toolsFor, type ToolsetName } from './toolsets';

export const SERVER_NAME = 'agent-progress';

export interface ServerDeps {
  services: Services;
  logger: Logger;
  toolsets: readonly ToolsetName[];
  version: string;
  /** The project id of the workspace that started this server, named in the instructions. */
  project?: string | undefined;
}

export function createServer(deps: ServerDeps): McpServer {
  const tools = toolsFor(deps.toolsets, deps.services);
  const mcp = new McpServer(
    { name: deps.toolsets.length === 1 ? `${SERVER_NAME}-${deps.toolsets[0]}` : SERVER_NAME, title: 'Agent Progress', version: deps.version },
    {
      instructions:
        'Agent Progress is the shared ledger of every agent working on this repository. At the start of a task call search_logs ' +
        `(projectId ${deps.project ? `"${deps.project}"` : '= the repository name'}) and get_context on the entries that matter; ` +
        'after each meaningful step call log_progress with what you did, where and why.',
    },
  );
  installTools(mcp.server, tools, { logger: deps.logger, samplingProvider: () => samplingProvider(mcp.server) });
  return mcp;
}
