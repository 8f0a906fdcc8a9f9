// What the ledger commands (export, import, retention) share: a file given as an argument (a Uri
// or a path, for scripts and tests) and one way to report a failure.

import * as vscode from 'vscode';
import { isLedgerError } from '../../../core/errors';
import type { Logger } from '../../../core/log';

/** A Uri or absolute path given to a command, as a file path; undefined when none was given. */
export function fileArg(arg: unknown): string | undefined {
  if (arg instanceof vscode.Uri) return arg.fsPath;
  if (typeof arg === 'string' && arg.trim() !== '') return arg.trim();
  return undefined;
}

/** Logs and shows a failure: a ledger error's own message (it says what to do), else what failed and why. */
export function showLedgerFailure(logger: Logger, what: string, err: unknown): void {
  const message = isLedgerError(err) ? `${what}: ${err.message}` : `${what}: ${err instanceof Error ? err.message : String(err)}`;
  logger.warn(message);
  void vscode.window.showErrorMessage(message);
}
