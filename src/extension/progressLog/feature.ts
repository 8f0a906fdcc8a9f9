// The Progress Log: its tree, the entry pages, search and the tag filter.

import type * as vscode from 'vscode';
import { CommandIds, ViewIds } from '../commandIds';
import { Feature, type CommandLine, type Shared } from '../feature';
import { refreshProgressLog } from './commands/refreshProgressLog';
import { showMoreEntries } from './commands/showMoreEntries';
import { searchLogs } from './commands/searchLogs';
import { openEntry } from './commands/openEntry';
import { openEntryById } from './commands/openEntryById';
import { summariseEntry } from './commands/summariseEntry';
import { copyEntryId } from './commands/copyEntryId';
import { filterByTag } from './commands/filterByTag';
import { clearTagFilter } from './commands/clearTagFilter';
import { EntryPanels } from './entryPanels';
import type { ProgressLogNode } from './progressLogItems';
import { ProgressLogProvider } from './progressLogProvider';
import { treeView } from '../views/treeView';

export interface ProgressLogDeps extends Shared {
  entries: EntryPanels;
  progressLog: ProgressLogProvider;
  progressLogView: vscode.TreeView<ProgressLogNode>;
}

/** The feature's commands: one line each. */
export const COMMANDS: readonly CommandLine<ProgressLogDeps>[] = [
  [CommandIds.refreshProgressLog, refreshProgressLog],
  [CommandIds.showMoreEntries, showMoreEntries],
  [CommandIds.searchLogs, searchLogs],
  [CommandIds.openEntry, openEntry],
  [CommandIds.openEntryById, openEntryById],
  [CommandIds.summariseEntry, summariseEntry],
  [CommandIds.copyEntryId, copyEntryId],
  [CommandIds.filterByTag, filterByTag],
  [CommandIds.clearTagFilter, clearTagFilter],
];

export function activateProgressLog(shared: Shared, commands: readonly CommandLine<ProgressLogDeps>[] = COMMANDS): Feature<ProgressLogDeps> {
  const entries = new EntryPanels(shared.context.extensionUri, shared.host, shared.logger);
  const progressLog = new ProgressLogProvider(shared.host);
  const progressLogView = treeView(ViewIds.progressLog, progressLog);
  return new Feature({ ...shared, entries, progressLog, progressLogView }, commands, [entries, progressLog, progressLogView]);
}
