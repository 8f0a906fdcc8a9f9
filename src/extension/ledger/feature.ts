// The ledger as a whole: export, import, copy to another backend, retention (and its reminder),
// recovery of set-aside records, its folder. Refreshes the Progress Log after changing entries.

import { CommandIds } from '../commandIds';
import { Feature, type CommandLine, type Shared } from '../feature';
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

/** The feature's commands: one line each. */
export const COMMANDS: readonly CommandLine<LedgerDeps>[] = [
  [CommandIds.exportLedger, exportLedger],
  [CommandIds.importLedger, importLedger],
  [CommandIds.copyLedger, copyLedger],
  [CommandIds.applyRetention, applyRetention],
  [CommandIds.restoreArchivedEntries, restoreArchivedEntries],
  [CommandIds.recoverLedger, recoverLedger],
  [CommandIds.revealLedgerFolder, revealLedgerFolder],
];

export function activateLedger(
  shared: Shared,
  progressLog: Pick<ProgressLogDeps, 'progressLog' | 'progressLogView'>,
  commands: readonly CommandLine<LedgerDeps>[] = COMMANDS,
): Feature<LedgerDeps> {
  const deps: LedgerDeps = { ...shared, progressLog: progressLog.progressLog, progressLogView: progressLog.progressLogView };
  return new Feature(deps, commands, [registerRetentionReminder(deps)]);
}
