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
  refreshWorkflows: 'agentProgress.refreshWorkflows',
  openWorkflow: 'agentProgress.openWorkflow',
  openFileChange: 'agentProgress.openFileChange',
  copyTrackedTaskId: 'agentProgress.copyTrackedTaskId',
  refreshAgentSessions: 'agentProgress.refreshAgentSessions',
  searchAgentSessions: 'agentProgress.searchAgentSessions',
  openAgentSession: 'agentProgress.openAgentSession',
  openAgentSessionById: 'agentProgress.openAgentSessionById',
  openTranscriptForEntry: 'agentProgress.openTranscriptForEntry',
  showMoreSessions: 'agentProgress.showMoreSessions',
  refreshTaskQueue: 'agentProgress.refreshTaskQueue',
  openTask: 'agentProgress.openTask',
  showMoreTasks: 'agentProgress.showMoreTasks',
  createQueueProject: 'agentProgress.createQueueProject',
  addTask: 'agentProgress.addTask',
  importTasks: 'agentProgress.importTasks',
  requeueTask: 'agentProgress.requeueTask',
  cancelTask: 'agentProgress.cancelTask',
  closeQueueProject: 'agentProgress.closeQueueProject',
  exportLedger: 'agentProgress.exportLedger',
  importLedger: 'agentProgress.importLedger',
  copyLedger: 'agentProgress.copyLedger',
  applyRetention: 'agentProgress.applyRetention',
  restoreArchivedEntries: 'agentProgress.restoreArchivedEntries',
  recoverLedger: 'agentProgress.recoverLedger',
  revealLedgerFolder: 'agentProgress.revealLedgerFolder',
  startReview: 'agentProgress.startReview',
  refreshReview: 'agentProgress.refreshReview',
  approveReviewAction: 'agentProgress.approveReviewAction',
  editReviewAction: 'agentProgress.editReviewAction',
  dismissReviewAction: 'agentProgress.dismissReviewAction',
  exportReviewActions: 'agentProgress.exportReviewActions',
  openReviewThread: 'agentProgress.openReviewThread',
  addReviewThread: 'agentProgress.addReviewThread',
  replyReviewThread: 'agentProgress.replyReviewThread',
  resolveReviewThread: 'agentProgress.resolveReviewThread',
  reopenReviewThread: 'agentProgress.reopenReviewThread',
  connectAgents: 'agentProgress.connectAgents',
  connectAgentHooks: 'agentProgress.connectAgentHooks',
  digestSessions: 'agentProgress.digestSessions',
} as const;

export type CommandId = (typeof CommandIds)[keyof typeof CommandIds];

export const ViewIds = {
  container: 'agentProgress',
  progressLog: 'agentProgress.progressLog',
  workflows: 'agentProgress.workflows',
  agentSessions: 'agentProgress.agentSessions',
  taskQueue: 'agentProgress.taskQueue',
  review: 'agentProgress.review',
} as const;

export const MCP_PROVIDER_ID = 'agentProgress.servers';

export const ContextKeys = {
  /** Set while the Progress Log view is filtered by a tag. */
  progressLogFiltered: 'agentProgress.progressLogFiltered',
} as const;

export const SETTINGS_SECTION = 'agentProgress';

/** The toolsets the extension offers as MCP servers (the server's --toolset names). */
export const TOOLSETS = ['progress', 'queue', 'workflow', 'traces', 'review'] as const;
export type Toolset = (typeof TOOLSETS)[number];

/** URI scheme of a file as it was when a tracked task started (the left side of its diff). */
export const SNAPSHOT_SCHEME = 'agent-progress-snapshot';
