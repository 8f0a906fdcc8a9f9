// Setting up: connecting other agents (MCP configs, hooks), the summary endpoint's API key, logs.

import { Feature, type Commands, type CommandTable, type Shared } from '../feature';
import { connectAgents } from './commands/connectAgents';
import { connectAgentHooks } from './commands/connectAgentHooks';
import { setApiKey } from './commands/setApiKey';
import { clearApiKey } from './commands/clearApiKey';
import { showLog } from './commands/showLog';

export type SetupDeps = Shared;

/** The feature's commands, by their CommandIds name. */
export const COMMANDS: CommandTable<SetupDeps> = { connectAgents, connectAgentHooks, setApiKey, clearApiKey, showLog };

export function activateSetup(shared: Shared, commands: Commands<SetupDeps> = COMMANDS): Feature<SetupDeps> {
  return new Feature(shared, commands);
}
