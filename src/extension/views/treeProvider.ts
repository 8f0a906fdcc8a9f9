// What every tree view's provider shares: the change event VS Code listens to, and onDidRefresh,
// fired once the top level was fetched again (tests wait on it).

import * as vscode from 'vscode';
import { Disposable } from '../disposable';

export abstract class TreeProvider<N> extends Disposable implements vscode.TreeDataProvider<N> {
  private readonly changed = this.register(new vscode.EventEmitter<N | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private readonly refreshed = this.register(new vscode.EventEmitter<void>());
  /** Fires after the view fetched its top level again (tests wait on it). */
  readonly onDidRefresh = this.refreshed.event;

  abstract getTreeItem(node: N): vscode.TreeItem | Thenable<vscode.TreeItem>;
  abstract getChildren(node?: N): Promise<N[]>;

  /** Asks VS Code to fetch the whole tree again. */
  protected redraw(): void {
    this.changed.fire(undefined);
  }

  /** Says that the top level was fetched again. */
  protected didRefresh(): void {
    this.refreshed.fire();
  }
}
