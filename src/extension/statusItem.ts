// The one status bar item (task queue, tracked tasks, review, sessions not yet digested): made and
// released with its owner, shown with a text and tooltip or hidden, and `visible` says which (tests
// read it). LedgerStatusItem is one that reads the ledger again whenever any process writes it.

import * as vscode from 'vscode';
import { Disposable } from './disposable';
import type { LedgerConnection } from './ledgerConnection';

export interface StatusText {
  text: string;
  tooltip: string;
  /** What a click runs, when it depends on what is shown. */
  command?: vscode.Command;
}

export class StatusItem extends Disposable {
  readonly item: vscode.StatusBarItem;
  /** Whether the item is shown now (tests read it). */
  visible = false;

  constructor(id: string, priority: number, name: string, command?: vscode.Command) {
    super();
    this.item = this.register(vscode.window.createStatusBarItem(id, vscode.StatusBarAlignment.Left, priority));
    this.item.name = name;
    if (command) this.item.command = command;
  }

  /** Shows `status`, or hides the item when there is none. */
  protected show(status: StatusText | undefined): void {
    if (!status) {
      this.item.hide();
      this.visible = false;
      return;
    }
    this.item.text = status.text;
    this.item.tooltip = status.tooltip;
    if (status.command) this.item.command = status.command;
    this.item.show();
    this.visible = true;
  }
}

/** A status item that reads the ledger again whenever any process writes it, one read at a time. */
export abstract class LedgerStatusItem extends StatusItem {
  private pending: Promise<void> | undefined;

  constructor(
    protected readonly host: LedgerConnection,
    id: string,
    priority: number,
    name: string,
    command?: vscode.Command,
  ) {
    super(id, priority, name, command);
    this.register(host.onDidChange(() => void this.update()));
  }

  /** Reads the ledger and shows or hides the item; resolves when done (tests await it). */
  update(): Promise<void> {
    this.pending ??= this.read()
      .then(
        (status) => this.show(status),
        () => this.show(undefined),
      )
      .finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** What the item shows now, or undefined to hide it (a failed read hides it too). */
  protected abstract read(): Promise<StatusText | undefined>;
}
