// What a toolset is: one descriptor (in src/mcp/tools/<toolset>/index.ts) naming everything it
// offers a client: its tools, its paragraph of the server's instructions, its prompts and its
// resource kinds. The server (server.ts), the prompt and resource handlers (prompts.ts,
// resources.ts), the README tool table (toolsTable.ts) and the token-budget bench all read these
// descriptors and nothing else, so adding a tool is one line in its toolset's descriptor.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../core/log';
import type { QueueSession } from '../core/queue/queueService';
import type { Services } from '../core/services';
import type { ToolDefinition } from './toolRegistry';

export const TOOLSET_NAMES = ['progress', 'queue', 'workflow', 'traces', 'review'] as const;
export type ToolsetName = (typeof TOOLSET_NAMES)[number];

/** What prompts and resources read the ledger through: one connection's view of it. */
export interface ToolsetContext {
  services: Services;
  logger: Logger;
  /** The project id of the workspace that started this server. */
  project: string | undefined;
  /** This connection's session (the queue project it joined, the agent it is). */
  session: QueueSession;
}

/** A prompt (a slash command in VS Code), registered on the server when its toolset is served. */
export interface PromptDescriptor {
  name: string;
  install(mcp: McpServer, ctx: ToolsetContext): void;
}

/** A kind of resource, `agent-progress://<kind>/{id}`: listed in pages and read by id. */
export interface ResourceDescriptor {
  kind: string;
  template: ResourceTemplate;
  /** One page of listed resources at `offset`, and how many there are in all. */
  list(ctx: ToolsetContext, offset: number, limit: number): Promise<{ items: Resource[]; total: number }>;
  read(ctx: ToolsetContext, id: string): Promise<string>;
}

export interface ToolsetDescriptor {
  /**
   * The toolset's tools. Builders only capture their service getters (tools reach services when
   * called), so listing names never opens the ledger.
   */
  tools(services: Services): ToolDefinition[];
  /** Its short paragraph of the server's instructions; `projectId` is how to name the project (`projectId "acme"`). */
  instructions(projectId: string): string;
  prompts: readonly PromptDescriptor[];
  resources: readonly ResourceDescriptor[];
}

/** Every toolset's descriptor, by name (toolsets.ts TOOLSETS; a test may serve another). */
export type ToolsetCatalog = Readonly<Record<ToolsetName, ToolsetDescriptor>>;
