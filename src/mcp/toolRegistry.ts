// Tool definitions and the tools/list + tools/call handlers. Arguments reach the handlers raw:
// core validates them, so the MCP server, the CLI and the extension refuse the same input with the
// same message. The JSON Schemas are derived once from the same zod schemas.

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { Logger } from '../core/log';
import type { SummaryProvider } from '../core/progress/summariser';
import type { QueueSession } from '../core/queue/queueService';
import { errorToResult, fitResult, ProtocolError } from './toolResult';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Reads the ledger and changes nothing: the same call answers the same while nothing else writes. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Adds to the ledger (a task, an entry, an attempt): each call adds again. */
export const APPENDS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
/** Changes the ledger, but the same call again changes nothing more (joining, taking the task already held). */
export const IDEMPOTENT_WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export interface ToolContext {
  signal: AbortSignal;
  /** This connection's session: the queue project it joined and the agent it authenticated as. */
  session: QueueSession;
  /** The connected client's sampling, when it declared that capability. */
  samplingProvider: SummaryProvider | undefined;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  output?: z.ZodObject;
  /**
   * List the output schema's top level only (property names and types): a toolset with many tools
   * stays within its tools/list budget. Results are still validated against the full schema.
   */
  shallowOutput?: boolean;
  annotations: ToolAnnotations;
  /**
   * The most this tool's answer may weigh in bytes (default RESPONSE_BUDGET, 30 KB; never above
   * RESPONSE_CEILING, 100 KB). Larger answers are cut by fitResult.
   */
  responseBudget?: number;
  /** Where the rest is when an answer is cut (e.g. "get_task returns one task in full"). */
  more?: string;
  handler(args: unknown, ctx: ToolContext): Promise<CallToolResult>;
}

function jsonSchema(schema: z.ZodObject, io: 'input' | 'output'): Tool['inputSchema'] {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  // Unknown arguments are refused by name when called; listing that costs every toolset tokens.
  if (io === 'input') delete out.additionalProperties;
  return out as Tool['inputSchema'];
}

export function describeTool(tool: ToolDefinition): Tool {
  const listed: Tool = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(tool.input, 'input'),
    annotations: { ...tool.annotations },
  };
  if (tool.output) {
    const full = jsonSchema(tool.output, 'output') as Tool['outputSchema'] & { properties?: Record<string, Record<string, unknown>> };
    listed.outputSchema = (tool.shallowOutput ? shallow(full) : full) as Tool['outputSchema'];
  }
  return listed;
}

/** A JSON Schema reduced to its top-level properties' types. */
function shallow(schema: { type?: unknown; properties?: Record<string, Record<string, unknown>>; required?: unknown }): Record<string, unknown> {
  const typeOf = (p: Record<string, unknown>): unknown => {
    if (p.type !== undefined) return p.type;
    const options = (p.anyOf ?? p.oneOf) as Record<string, unknown>[] | undefined;
    if (options) return [...new Set(options.flatMap((o) => (Array.isArray(o.type) ? o.type : [o.type])).filter(Boolean))];
    return undefined;
  };
  const properties: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const type = typeOf(prop);
    properties[name] = type === undefined ? {} : { type: Array.isArray(type) && type.length === 1 ? type[0] : type };
  }
  return { type: 'object', properties, ...(schema.required ? { required: schema.required } : {}) };
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
  options: { logger: Logger; samplingProvider: () => SummaryProvider | undefined; session: QueueSession },
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
      options.logger.debug(`unknown tool ${request.params.name}`);
      throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. This server offers ${[...byName.keys()].join(', ')}.`);
    }
    try {
      const result = await tool.handler(request.params.arguments ?? {}, { signal: extra.signal, samplingProvider: options.samplingProvider(), session: options.session });
      return fitResult(result, {
        tool: tool.name,
        readOnly: tool.annotations.readOnlyHint,
        ...(tool.responseBudget !== undefined ? { budget: tool.responseBudget } : {}),
        ...(tool.more ? { more: tool.more } : {}),
      });
    } catch (err) {
      return errorToResult(err, tool.name, options.logger);
    }
  });
}
