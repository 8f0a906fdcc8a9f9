// The table of toolsets: which tools each brings. One server process serves one or more toolsets
// (--toolset), refusing a combination whose tool names collide (DESIGN §2).

import type { Services } from '../core/services';
import type { ToolDefinition } from './toolRegistry';
import { progressTools } from './tools/progress';

export const TOOLSET_NAMES = ['progress'] as const;
export type ToolsetName = (typeof TOOLSET_NAMES)[number];

const BUILDERS: Record<ToolsetName, (services: Services) => ToolDefinition[]> = {
  progress: (services) => progressTools({ progress: () => services.progress() }),
};

export class ToolsetError extends Error {}

/** Parses "a,b" into toolset names; 'all' means every toolset whose names do not collide. */
export function parseToolsets(raw: string): ToolsetName[] {
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new ToolsetError(`--toolset needs a name: one or more of ${TOOLSET_NAMES.join(', ')}, comma-separated`);
  if (names.length === 1 && names[0] === 'all') return [...TOOLSET_NAMES];
  const out: ToolsetName[] = [];
  for (const name of names) {
    if (!(TOOLSET_NAMES as readonly string[]).includes(name)) {
      throw new ToolsetError(`Unknown toolset "${name}". Available: ${TOOLSET_NAMES.join(', ')}.`);
    }
    if (!out.includes(name as ToolsetName)) out.push(name as ToolsetName);
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
