// Every command, view and provider id of the extension, in one place. package.json must contribute
// exactly these (the manifest test checks both ways).

export const CommandIds = {
  refreshProgressLog: 'agentProgress.refreshProgressLog',
  searchLogs: 'agentProgress.searchLogs',
  filterByTag: 'agentProgress.filterByTag',
  clearTagFilter: 'agentProgress.clearTagFilter',
  openEntry: 'agentProgress.openEntry',
  openEntryById: 'agentProgress.openEntryById',
  summariseEntry: 'agentProgress.summariseEntry',
  copyEntryId: 'agentProgress.copyEntryId',
  setApiKey: 'agentProgress.setApiKey',
  clearApiKey: 'agentProgress.clearApiKey',
  showLog: 'agentProgress.showLog',
  showMoreEntries: 'agentProgress.showMoreEntries',
} as const;

export type CommandId = (typeof CommandIds)[keyof typeof CommandIds];

export const ViewIds = {
  container: 'agentProgress',
  progressLog: 'agentProgress.progressLog',
} as const;

export const MCP_PROVIDER_ID = 'agentProgress.servers';

export const ContextKeys = {
  /** Set while the Progress Log view is filtered by a tag. */
  progressLogFiltered: 'agentProgress.progressLogFiltered',
} as const;

export const SETTINGS_SECTION = 'agentProgress';

/** The toolsets the extension offers as MCP servers (the server's --toolset names). */
export const TOOLSETS = ['progress'] as const;
export type Toolset = (typeof TOOLSETS)[number];
