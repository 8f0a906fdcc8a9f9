// Agent sessions: the transcripts' tree, the session pages, search, and session digests (the
// periodic digest, its status bar item and first-run notice).

import type * as vscode from 'vscode';
import { CommandIds, ViewIds } from '../commandIds';
import { Feature, type CommandLine, type Shared } from '../feature';
import { refreshAgentSessions } from './commands/refreshAgentSessions';
import { searchAgentSessions } from './commands/searchAgentSessions';
import { openAgentSession } from './commands/openAgentSession';
import { openAgentSessionById } from './commands/openAgentSessionById';
import { openTranscriptForEntry } from './commands/openTranscriptForEntry';
import { showMoreSessions } from './commands/showMoreSessions';
import { digestSessions } from './commands/digestSessions';
import type { AgentSessionsNode } from './agentSessionsItems';
import { AgentSessionsProvider, watchWhileVisible } from './agentSessionsProvider';
import { treeView } from '../views/treeView';
import { DigestTicker } from './digestTicker';
import { SessionPanels } from './sessionPanels';

export interface SessionsDeps extends Shared {
  agentSessions: AgentSessionsProvider;
  agentSessionsView: vscode.TreeView<AgentSessionsNode>;
  sessionPanels: SessionPanels;
  digests: DigestTicker;
}

/** The feature's commands: one line each. */
export const COMMANDS: readonly CommandLine<SessionsDeps>[] = [
  [CommandIds.refreshAgentSessions, refreshAgentSessions],
  [CommandIds.searchAgentSessions, searchAgentSessions],
  [CommandIds.openAgentSession, openAgentSession],
  [CommandIds.openAgentSessionById, openAgentSessionById],
  [CommandIds.openTranscriptForEntry, openTranscriptForEntry],
  [CommandIds.showMoreSessions, showMoreSessions],
  [CommandIds.digestSessions, digestSessions],
];

export function activateSessions(shared: Shared, commands: readonly CommandLine<SessionsDeps>[] = COMMANDS): Feature<SessionsDeps> {
  const agentSessions = new AgentSessionsProvider(shared.traces);
  const agentSessionsView = treeView(ViewIds.agentSessions, agentSessions);
  const watching = watchWhileVisible(agentSessionsView, shared.traces);
  const sessionPanels = new SessionPanels(shared.context.extensionUri, shared.traces, shared.logger);
  const digests = new DigestTicker(shared.context, shared.host, shared.traces, shared.logger);
  const feature = new Feature({ ...shared, agentSessions, agentSessionsView, sessionPanels, digests }, commands, [
    agentSessions,
    agentSessionsView,
    watching,
    sessionPanels,
    digests,
  ]);
  digests.start();
  return feature;
}
