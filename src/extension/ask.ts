// What commands ask a person for, when a caller (a script, a test, a link) did not pass it.

import * as vscode from 'vscode';

/** The string the caller passed, else what the person types in an input box (undefined: cancelled). */
export async function givenOrAsk(given: unknown, options: vscode.InputBoxOptions): Promise<string | undefined> {
  return typeof given === 'string' ? given : vscode.window.showInputBox(options);
}
