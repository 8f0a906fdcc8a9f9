// A tree row as plain data, shared by every view: the pure *Items.ts mappers return it (and are
// unit-tested without VS Code); treeItem.ts turns it into a vscode.TreeItem.

export interface TooltipData {
  title: string;
  /** Plain text lines (escaped when rendered). */
  lines: string[];
  summary?: string;
}

export interface TreeRow {
  id: string;
  label: string;
  description?: string;
  /** Rendered as Markdown whose text is escaped. */
  tooltip?: TooltipData;
  iconId: string;
  /** A theme colour id for the icon, e.g. charts.red. */
  iconColor?: string;
  contextValue: string;
  collapsible: 'none' | 'collapsed' | 'expanded';
  command?: { command: string; title: string; arguments: unknown[] };
}
