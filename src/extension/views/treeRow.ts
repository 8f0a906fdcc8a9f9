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

/** "Show more (50 of 130)": a leaf whose click runs `command` with `args` to list the next page. */
export function showMoreRow(id: string, page: { shown: number; total: number }, command: string, args: unknown[], contextValue = 'more'): TreeRow {
  return {
    id,
    label: `Show more (${page.shown} of ${page.total})`,
    iconId: 'ellipsis',
    contextValue,
    collapsible: 'none',
    command: { command, title: 'Show More', arguments: args },
  };
}

/** A message in place of rows: an error reading what the tree shows, or why it is empty. */
export function messageRow(id: string, message: { text: string; icon: 'error' | 'info' }): TreeRow {
  return { id, label: message.text, iconId: message.icon === 'error' ? 'error' : 'info', contextValue: 'message', collapsible: 'none' };
}
