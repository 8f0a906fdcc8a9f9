// The Progress Log: its tree, the entry pages, search and the tag filter.

import { ViewIds } from '../commandIds';
import { Feature, type Commands, type CommandTable, type Shared } from '../feature';
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
import { ProgressLogProvider } from './progressLogProvider';
import { treeView } from '../views/treeView';

function parts(shared: Shared) {
  const progressLog = new ProgressLogProvider(shared.host);
  return { entries: new EntryPanels(shared.context.extensionUri, shared.host, shared.logger), progressLog, progressLogView: treeView(ViewIds.progressLog, progressLog) };
}

export type ProgressLogDeps = Shared & ReturnType<typeof parts>;

/** The feature's commands, by their CommandIds name. */
export const COMMANDS: CommandTable<ProgressLogDeps> = {
  refreshProgressLog,
  showMoreEntries,
  searchLogs,
  openEntry,
  openEntryById,
  summariseEntry,
  copyEntryId,
  filterByTag,
  clearTagFilter,
};

export function activateProgressLog(shared: Shared, commands: Commands<ProgressLogDeps> = COMMANDS): Feature<ProgressLogDeps> {
  return Feature.owning(shared, parts(shared), commands);
}
