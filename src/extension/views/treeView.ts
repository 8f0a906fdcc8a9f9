// The one way a feature makes its tree view: the provider under its view id, with Collapse All.
// The feature owns both (disposing it releases them), not the extension context.

import * as vscode from 'vscode';

export function treeView<T>(viewId: string, treeDataProvider: vscode.TreeDataProvider<T>): vscode.TreeView<T> {
  return vscode.window.createTreeView(viewId, { treeDataProvider, showCollapseAll: true });
}
