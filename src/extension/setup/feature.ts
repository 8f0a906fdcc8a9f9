// Setting up: connecting other agents (MCP configs, hooks), the summary endpoint's API key, logs.

import { CommandIds } from '../commandIds';
import { Feature, type CommandLine, type Shared } from '../feature';
import { connectAgents } from './commands/connectAgents';
import { connectAgentHooks } from './commands/connectAgentHooks';
import { setApiKey } from './commands/setApiKey';
import { clearApiKey } from './commands/clearApiKey';
import { showLog } from './commands/showLog';

export type SetupDeps = Shared;

/** The feature's commands: one line each. */
export const COMMANDS: readonly CommandLine<SetupDeps>[] = [
  [CommandIds.connectAgents, connectAgents],
  [CommandIds.connectAgentHooks, connectAgentHooks],
  [CommandIds.setApiKey, setApiKey],
  [CommandIds.clearApiKey, clearApiKey],
  [CommandIds.showLog, showLog],
];

export function activateSetup(shared: Shared, commands: readonly CommandLine<SetupDeps>[] = COMMANDS): Feature<SetupDeps> {
  return new Feature(shared, commands);
}
