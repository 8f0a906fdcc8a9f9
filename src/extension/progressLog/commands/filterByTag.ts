// Agent Progress: Filter by Tag (Progress Log toolbar): pick one of the ledger's tags; the view then
// shows only entries carrying it, and says so in its description.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { ProgressLogDeps } from '../feature';

export function filterByTag(deps: ProgressLogDeps): CommandHandler {
  return async (given?: unknown) => {
    let tag = typeof given === 'string' ? given : undefined;
    if (tag === undefined) {
      const progress = await deps.host.progress();
      const counts = new Map<string, { tag: string; count: number }>();
      for (const project of await progress.listProjects()) {
        for (const t of await progress.listTags(project.projectId)) {
          const key = t.tag.toLowerCase();
          const seen = counts.get(key);
          counts.set(key, { tag: seen?.tag ?? t.tag, count: (seen?.count ?? 0) + t.count });
        }
      }
      if (counts.size === 0) {
        void vscode.window.showInformationMessage('No entry has a tag yet.');
        return;
      }
      const picked = await vscode.window.showQuickPick(
        [...counts.values()].sort((a, b) => b.count - a.count).map((t) => ({ label: `#${t.tag}`, description: `${t.count} ${t.count === 1 ? 'entry' : 'entries'}`, tag: t.tag })),
        { title: 'Filter the Progress Log by tag', placeHolder: 'Only entries with this tag will show' },
      );
      tag = picked?.tag;
    }
    if (tag === undefined) return;
    deps.progressLogView.description = `#${tag}`;
    await deps.progressLog.setTagFilter(tag);
  };
}
