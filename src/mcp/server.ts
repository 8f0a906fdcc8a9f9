// createServer(): an MCP server for the chosen toolsets over the shared services, apart from any
// transport so tests can connect it in memory and main.ts over stdio. Everything it serves comes
// from the toolsets' descriptors (toolsets.ts TOOLSETS).

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import type { Logger } from '../core/log';
import { newQueueSession, type QueueSession } from '../core/queue/session';
import type { Services } from '../core/services';
import { installPrompts } from './prompts';
import { installResources } from './resources';
import { samplingProvider } from './sampling';
import { installTools } from './toolRegistry';
import { toolsFor, TOOLSETS, type ToolsetCatalog, type ToolsetName } from './toolsets';

export const SERVER_NAME = 'agent-progress';

export interface ServerDeps {
  services: Services;
  logger: Logger;
  toolsets: readonly ToolsetName[];
  version: string;
  /** The project id of the workspace that started this server, named in the instructions. */
  project?: string | undefined;
  /** This connection's session (one per stdio process; one per HTTP session). */
  session?: QueueSession;
  /** Where the toolsets' descriptors come from (default TOOLSETS); a test serves one with an extra tool. */
  catalog?: ToolsetCatalog;
}

/** What the client's model is told about this server: one short paragraph per toolset served (its descriptor's). */
export function serverInstructions(toolsets: readonly ToolsetName[], project: string | undefined, catalog: ToolsetCatalog = TOOLSETS): string {
  const projectId = project ? `projectId "${project}"` : 'projectId = the repository name';
  return ['Agent Progress is the shared ledger of every agent working on this repository.', ...toolsets.map((t) => catalog[t].instructions(projectId))].join(' ');
}

/**
 * The SDK's server validates with a JSON Schema validator only what a client answers to an
 * elicitation, which these servers do not ask for, yet builds its default one (ajv with its meta
 * schemas and formats) in every server's constructor: here it is built on first use.
 */
export function lazySchemaValidator(): jsonSchemaValidator {
  let ajv: AjvJsonSchemaValidator | undefined;
  return { getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema) };
}

export function createServer(deps: ServerDeps): McpServer {
  const catalog = deps.catalog ?? TOOLSETS;
  const tools = toolsFor(deps.toolsets, deps.services, catalog);
  const mcp = new McpServer(
    { name: deps.toolsets.length === 1 ? `${SERVER_NAME}-${deps.toolsets[0]}` : SERVER_NAME, title: 'Agent Progress', version: deps.version },
    {
      instructions: serverInstructions(deps.toolsets, deps.project, catalog),
      jsonSchemaValidator: lazySchemaValidator(),
    },
  );
  const session = deps.session ?? newQueueSession();
  installTools(mcp.server, tools, { logger: deps.logger, samplingProvider: () => samplingProvider(mcp.server), session });
  const context = { services: deps.services, logger: deps.logger, project: deps.project, session };
  installResources(mcp.server, catalog, deps.toolsets, context);
  installPrompts(mcp, catalog, deps.toolsets, context);
  return mcp;
}
