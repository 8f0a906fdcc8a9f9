// Agent Progress: Recover Set-Aside Ledger Writes: after a damaged spot in the ledger's journal,
// sets the damaged tail aside and writes every intact write in it to the ledger again (the same
// as `agent-progress recover-ledger`; the details go to the Agent Progress log).

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { TailRecovery } from '../../../core/storage/store';
import { loadCore } from '../../core';
import type { LedgerDeps } from '../feature';
import { showLedgerFailure } from './ledgerFiles';

export function recoverLedger(deps: LedgerDeps): CommandHandler {
  return async (): Promise<TailRecovery | undefined> => {
    try {
      const result = await (await deps.host.ledger()).recoverSetAside();
      const { recoveryLines, recoverySummary } = loadCore();
      for (const line of recoveryLines(result)) deps.logger.info(line);
      if (result.files.some((f) => f.applied > 0)) deps.progressLog.refresh();
      void vscode.window.showInformationMessage(`Agent Progress: ${recoverySummary(result)}`);
      return result;
    } catch (err) {
      showLedgerFailure(deps.logger, 'Could not recover the set-aside ledger writes', err);
      return undefined;
    }
  };
}
