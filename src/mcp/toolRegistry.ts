// Tool definitions and the tools/list + tools/call handlers. Arguments reach the handlers raw:
// core validates them, so the MCP server, the CLI and the extension refuse the same input with the
// same message. The JSON Schemas are derived once from the same zod schemas.

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Logger } from '../core/log';
import type { SummaryProvider } from '../core/progress/summariser';
import { errorToResult, ProtocolError } from './toolResult';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolContext {
  signal: AbortSignal;
  /** The connected client's sampling, when it declared that capability. */
  samplingProvider: SummaryProvider | undefined;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  output?: z.ZodObject;
  annotations: ToolAnnotations;
  handler(args: unknown, ctx: ToolContext): Promise<CallToolResult>;
}

function jsonSchema(schema: z.ZodObject, io: 'input' | 'output'): Tool['inputSchema'] {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return out as Tool['inputSchema'];
}

export function describeTool(tool: ToolDefinition): Tool {
  const listed: Tool = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(tool.input, 'input'),
    annotations: { title: tool.title, ...tool.annotations },
  };
  if (tool.output) listed.outputSchema = jsonSchema(tool.output, 'output') as Tool['outputSchema'];
  return listed;
}

/**
 * tools/call as the SDK defines it, except that `arguments` may be any JSON value, so that core
 * refuses a non-object (an array, a string, null...) with its own message as invalid params. The
 * SDK's schema would turn it into an internal error (-32603) carrying a raw zod dump instead.
 */
const ToolCallRequestSchema = CallToolRequestSchema.extend({
  params: CallToolRequestSchema.shape.params.extend({ arguments: z.unknown().optional() }),
});

export function installTools(
  server: Server,
  tools: readonly ToolDefinition[],
  options: { logger: Logger; samplingProvider: () => SummaryProvider | undefined },
): void {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listed = tools.map(describeTool);
  server.registerCapabilities({ tools: { listChanged: false } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  // Registered through Protocol's method: Server's own override re-validates the request against
  // the SDK schema before any handler runs, which is what ToolCallRequestSchema relaxes.
  Protocol.prototype.setRequestHandler.call(server, ToolCallRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. This server offers ${[...byName.keys()].join(', ')}.`);
    }
    try {
      return await tool.handler(request.params.arguments ?? {}, { signal: extra.signal, samplingProvider: options.samplingProvider() });
    } catch (err) {
      return errorToResult(err, tool.name, options.logger);
    }
  });
}
