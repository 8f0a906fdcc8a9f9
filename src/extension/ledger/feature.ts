// The ledger as a whole: export, import, copy to another backend, retention (and its reminder),
// recovery of set-aside records, its folder. Refreshes the Progress Log after changing entries.

import { Feature, type Commands, type CommandTable, type Shared } from '../feature';
import type { ProgressLogDeps } from '../progressLog/feature';
import { exportLedger } from './commands/exportLedger';
import { importLedger } from './commands/importLedger';
import { copyLedger } from './commands/copyLedger';
import { applyRetention } from './commands/applyRetention';
import { restoreArchivedEntries } from './commands/restoreArchivedEntries';
import { recoverLedger } from './commands/recoverLedger';
import { revealLedgerFolder } from './commands/revealLedgerFolder';
import { registerRetentionReminder } from './retentionReminder';

export interface LedgerDeps extends Shared, Pick<ProgressLogDeps, 'progressLog' | 'progressLogView'> {}

/** The feature's commands, by their CommandIds name. */
export const COMMANDS: CommandTable<LedgerDeps> = { exportLedger, importLedger, copyLedger, applyRetention, restoreArchivedEntries, recoverLedger, revealLedgerFolder };

export function activateLedger(
  shared: Shared,
  progressLog: Pick<ProgressLogDeps, 'progressLog' | 'progressLogView'>,
  commands: Commands<LedgerDeps> = COMMANDS,
): Feature<LedgerDeps> {
  const deps: LedgerDeps = { ...shared, progressLog: progressLog.progressLog, progressLogView: progressLog.progressLogView };
  return new Feature(deps, commands, [registerRetentionReminder(deps)]);
}
