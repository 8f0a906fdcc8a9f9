// The toolsets by name, each one descriptor (src/mcp/tools/<toolset>/index.ts: tools,
// instructions, prompts, resources). One server process serves one or more toolsets (--toolset),
// refusing a combination whose tool names collide: a client would see one name for two tools.

import type { Services } from '../core/services';
import type { ToolDefinition } from './toolRegistry';
import { TOOLSET_NAMES, type ToolsetCatalog, type ToolsetName } from './toolset';
import type * as ProgressTools from './tools/progress';
import type * as QueueTools from './tools/queue';
import type * as WorkflowTools from './tools/workflow';
import type * as TracesTools from './tools/traces';
import type * as ReviewTools from './tools/review';

export { TOOLSET_NAMES, type ToolsetCatalog, type ToolsetName } from './toolset';

/**
 * Every toolset, each evaluated (its tools, its services' zod schemas) when first read: a server
 * evaluates only the toolsets it serves (ARCHITECTURE.md, "Bundles and the start path").
 */
/* eslint-disable @typescript-eslint/no-require-imports -- synchronous lazy loading; the bundle keeps each module unevaluated until then */
export const TOOLSETS: ToolsetCatalog = {
  get progress() {
    return (require('./tools/progress') as typeof ProgressTools).progressToolset;
  },
  get queue() {
    return (require('./tools/queue') as typeof QueueTools).queueToolset;
  },
  get workflow() {
    return (require('./tools/workflow') as typeof WorkflowTools).workflowToolset;
  },
  get traces() {
    return (require('./tools/traces') as typeof TracesTools).tracesToolset;
  },
  get review() {
    return (require('./tools/review') as typeof ReviewTools).reviewToolset;
  },
};
/* eslint-enable @typescript-eslint/no-require-imports */

export class ToolsetError extends Error {}

/**
 * A toolset's tool definitions without services: the builders only capture their service getters
 * (tools reach services when called), so a stand-in that is never called is enough.
 */
export function toolDefinitionsOf(toolset: ToolsetName, catalog: ToolsetCatalog = TOOLSETS): ToolDefinition[] {
  const unused = new Proxy({} as Services, {
    get: () => () => {
      throw new Error('toolDefinitionsOf: services are not available here');
    },
  });
  return catalog[toolset].tools(unused);
}

/** The tool names of a toolset, from its descriptor. */
export function toolNamesOf(toolset: ToolsetName, catalog: ToolsetCatalog = TOOLSETS): string[] {
  return toolDefinitionsOf(toolset, catalog).map((t) => t.name);
}

/** The first tool two toolsets both define, if any. */
function collision(a: ToolsetName, b: ToolsetName): string | undefined {
  const names = new Set(toolNamesOf(a));
  return toolNamesOf(b).find((n) => names.has(n));
}

/**
 * Parses "a,b" into toolset names, refusing unknown names and two toolsets that define the same
 * tool. "all" means every toolset, in order, leaving out any whose tools collide with one before it
 * (`skipped` says which, to tell the user to run it as a second server).
 */
export function parseToolsets(raw: string, skipped: { toolset: ToolsetName; tool: string; with: ToolsetName }[] = []): ToolsetName[] {
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new ToolsetError(`--toolset needs a name: one or more of ${TOOLSET_NAMES.join(', ')}, comma-separated`);
  const all = names.length === 1 && names[0] === 'all';
  const out: ToolsetName[] = [];
  for (const name of all ? TOOLSET_NAMES : names) {
    if (!(TOOLSET_NAMES as readonly string[]).includes(name)) {
      throw new ToolsetError(`Unknown toolset "${name}". Available: ${TOOLSET_NAMES.join(', ')}, or all.`);
    }
    const toolset = name as ToolsetName;
    if (out.includes(toolset)) continue;
    const clash = out.map((other) => ({ other, tool: collision(other, toolset) })).find((c) => c.tool !== undefined);
    if (clash) {
      if (all) {
        skipped.push({ toolset, tool: clash.tool!, with: clash.other });
        continue;
      }
      throw new ToolsetError(`Toolsets ${clash.other} and ${toolset} both define ${clash.tool}; run them as separate servers (--toolset ${clash.other} and --toolset ${toolset})`);
    }
    out.push(toolset);
  }
  return out;
}

/** Every tool of the given toolsets; refuses two toolsets that define the same tool name. */
export function toolsFor(toolsets: readonly ToolsetName[], services: Services, catalog: ToolsetCatalog = TOOLSETS): ToolDefinition[] {
  const owner = new Map<string, ToolsetName>();
  const tools: ToolDefinition[] = [];
  for (const toolset of toolsets) {
    for (const tool of catalog[toolset].tools(services)) {
      const other = owner.get(tool.name);
      if (other) {
        throw new ToolsetError(`Toolsets ${other} and ${toolset} both define ${tool.name}; run them as separate servers (--toolset ${other} and --toolset ${toolset}).`);
      }
      owner.set(tool.name, toolset);
      tools.push(tool);
    }
  }
  return tools;
}
