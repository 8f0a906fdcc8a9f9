// TreeRow to vscode.TreeItem, for every view. Tooltips are Markdown built with appendText, so an
// agent's text is never interpreted (no links, no HTML, no command URIs).

import * as vscode from 'vscode';
import type { TooltipData, TreeRow } from './treeRow';

export function tooltipMarkdown(t: TooltipData): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, false);
  md.isTrusted = false;
  md.supportHtml = false;
  md.appendMarkdown('**');
  md.appendText(t.title);
  md.appendMarkdown('**\n\n');
  if (t.summary) {
    md.appendText(t.summary);
    md.appendMarkdown('\n\n---\n\n');
  }
  for (const line of t.lines) {
    md.appendText(line);
    md.appendMarkdown('  \n');
  }
  return md;
}

const COLLAPSIBLE = {
  none: vscode.TreeItemCollapsibleState.None,
  collapsed: vscode.TreeItemCollapsibleState.Collapsed,
  expanded: vscode.TreeItemCollapsibleState.Expanded,
} as const;

export function toTreeItem(row: TreeRow): vscode.TreeItem {
  const item = new vscode.TreeItem(row.label, COLLAPSIBLE[row.collapsible]);
  item.id = row.id;
  if (row.description !== undefined) item.description = row.description;
  if (row.tooltip) item.tooltip = tooltipMarkdown(row.tooltip);
  item.iconPath = new vscode.ThemeIcon(row.iconId, row.iconColor ? new vscode.ThemeColor(row.iconColor) : undefined);
  item.contextValue = row.contextValue;
  if (row.command) item.command = row.command;
  return item;
}
