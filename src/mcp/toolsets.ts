// The table of toolsets: which tools each brings. One server process serves one or more toolsets
// (--toolset), refusing a combination whose tool names collide (DESIGN §2).

import type { Services } from '../core/services';
import type { ToolDefinition } from './toolRegistry';
import { progressTools } from './tools/progress';
import { queueTools } from './tools/queue';
import { workflowTools } from './tools/workflow';
import { tracesTools } from './tools/traces';
import { reviewTools } from './tools/review';

export const TOOLSET_NAMES = ['progress', 'queue', 'workflow', 'traces', 'review'] as const;
export type ToolsetName = (typeof TOOLSET_NAMES)[number];

const BUILDERS: Record<ToolsetName, (services: Services) => ToolDefinition[]> = {
  progress: (services) => progressTools({ progress: () => services.progress() }),
  queue: (services) => queueTools({ queue: () => services.queue() }),
  workflow: (services) => workflowTools({ workflow: () => services.workflow() }),
  traces: (services) => tracesTools({ traces: () => services.traces(), logger: services.logger }),
  review: (services) => reviewTools({ review: () => services.review() }),
};

export class ToolsetError extends Error {}

/**
 * The tool names of a toolset, from its definitions. The builders only capture their service
 * getters (tools reach services when called), so a stand-in that is never called is enough.
 */
export function toolNamesOf(toolset: ToolsetName): string[] {
  const unused = new Proxy({} as Services, {
    get: () => () => {
      throw new Error('toolNamesOf: services are not available here');
    },
  });
  return BUILDERS[toolset](unused).map((t) => t.name);
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
export function toolsFor(toolsets: readonly ToolsetName[], services: Services): ToolDefinition[] {
  const owner = new Map<string, ToolsetName>();
  const tools: ToolDefinition[] = [];
  for (const toolset of toolsets) {
    for (const tool of BUILDERS[toolset](services)) {
      const other = owner.get(tool.name);
      if (other) {
        throw new ToolsetError(
          `Toolsets ${other} and ${toolset} both define ${tool.name}; run them as separate servers (--toolset ${other} and --toolset ${toolset}).`,
        );
      }
      owner.set(tool.name, toolset);
      tools.push(tool);
    }
  }
  return tools;
}
