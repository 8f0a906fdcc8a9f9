// Agent sessions: the transcripts' tree, the session pages, search, and session digests (the
// periodic digest, its status bar item and first-run notice).

import { ViewIds } from '../commandIds';
import { Feature, type Commands, type CommandTable, type Shared } from '../feature';
import { refreshAgentSessions } from './commands/refreshAgentSessions';
import { searchAgentSessions } from './commands/searchAgentSessions';
import { openAgentSession } from './commands/openAgentSession';
import { openAgentSessionById } from './commands/openAgentSessionById';
import { openTranscriptForEntry } from './commands/openTranscriptForEntry';
import { showMoreSessions } from './commands/showMoreSessions';
import { digestSessions } from './commands/digestSessions';
import { AgentSessionsProvider, watchWhileVisible } from './agentSessionsProvider';
import { treeView } from '../views/treeView';
import { DigestTicker } from './digestTicker';
import { SessionPanels } from './sessionPanels';

function parts({ context, host, traces, logger }: Shared) {
  const agentSessions = new AgentSessionsProvider(traces);
  const agentSessionsView = treeView(ViewIds.agentSessions, agentSessions);
  return { agentSessions, agentSessionsView, sessionPanels: new SessionPanels(context.extensionUri, traces, logger), digests: new DigestTicker(context, host, traces, logger) };
}

export type SessionsDeps = Shared & ReturnType<typeof parts>;

/** The feature's commands, by their CommandIds name. */
export const COMMANDS: CommandTable<SessionsDeps> = {
  refreshAgentSessions,
  searchAgentSessions,
  openAgentSession,
  openAgentSessionById,
  openTranscriptForEntry,
  showMoreSessions,
  digestSessions,
};

export function activateSessions(shared: Shared, commands: Commands<SessionsDeps> = COMMANDS): Feature<SessionsDeps> {
  const made = parts(shared);
  const feature = Feature.owning(shared, made, commands, [watchWhileVisible(made.agentSessionsView, shared.traces)]);
  made.digests.start();
  return feature;
}
