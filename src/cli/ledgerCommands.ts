// CLI commands over the whole ledger: export and import as a versioned JSON document, retention
// (archive or delete entries older than N days, after writing them to a file), and restoring
// archived entries. Thin wrappers over TransferService, like the editor's commands.

import * as path from 'node:path';
import { recoveryLines } from '../core/storage/recoveryText';
import type { ImportCounts } from '../core/transfer/document';
import { flagSet, flagValue, parseArgv, UsageError } from './args';
import type { Command } from './command';

function countsLine(counts: ImportCounts['imported']): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${n} ${name}`);
  return parts.length > 0 ? parts.join(', ') : 'nothing';
}

const exportCommand: Command = {
  name: 'export',
  summary: 'write the whole ledger to a JSON file',
  group: 'Ledger',
  usage: `Usage: agent-progress export [--out FILE] [--json]

Writes every toolset's data (progress entries with summaries, archived entries, queue projects,
task types, tasks, attempts, agents and audit, workflows with tasks, events, files changed and
snapshot metadata) to one versioned JSON document that "agent-progress import" reads back.

Options:
  --out FILE   where to write it (default: exports/agent-progress-ledger-<time>.json beside the ledger)
  --json       print the file and record counts as JSON`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { out: { value: true, alias: 'o' }, json: {} });
    if (p.positionals.length > 0) throw new UsageError(`Unexpected argument "${p.positionals[0]}" (give the file with --out)`);
    const transfer = await ctx.services.transfer();
    const out = flagValue(p, 'out');
    const file = out !== undefined ? path.resolve(ctx.cwd, out) : transfer.defaultExportPath('ledger');
    const { document, bytes } = await transfer.exportToFile(file);
    if (flagSet(p, 'json')) ctx.out.json({ file, bytes, version: document.version, counts: document.counts });
    else ctx.out.line(`Exported ${countsLine(document.counts)} to ${file} (${bytes} bytes)`);
  },
};

const importCommand: Command = {
  name: 'import',
  summary: 'add a ledger export to this ledger (all or nothing)',
  group: 'Ledger',
  usage: `Usage: agent-progress import FILE [--json]

Adds every record of a file written by "agent-progress export" (or by a retention run) in one
transaction. Projects that already exist are kept; any other record whose id is already in this
ledger refuses the whole import, and nothing is written. A file of another format version is refused.

Options:
  --json   print the record counts as JSON`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { json: {} });
    if (p.positionals.length !== 1) throw new UsageError('Give one file to import');
    const file = path.resolve(ctx.cwd, p.positionals[0]!);
    const { counts } = await (await ctx.services.transfer()).importFile(file);
    if (flagSet(p, 'json')) ctx.out.json({ file, ...counts });
    else ctx.out.line(`Imported ${countsLine(counts.imported)} from ${file}`);
  },
};

const retentionCommand: Command = {
  name: 'retention',
  summary: 'archive or delete entries older than N days',
  group: 'Ledger',
  usage: `Usage: agent-progress retention --days N (--archive | --delete) [--yes] [options]

Progress entries created more than N days ago are archived (out of search, get_context and the
views, kept whole; "agent-progress restore-archived" brings them back) or deleted for good.
Either way they are first written to a JSON file that "agent-progress import" reads back.
Without --yes, only says how many entries it would remove.

Options:
  --days N         entries older than this many days (1-36500)
  --archive        archive them (recoverable)
  --delete         delete them
  --project ID     only this project's entries (default: every project)
  --export FILE    where to write them first (default: exports/ beside the ledger)
  --yes            do it
  --json           print the result as JSON`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { days: { value: true }, archive: {}, delete: {}, project: { value: true, alias: 'p' }, export: { value: true }, yes: { alias: 'y' }, json: {} });
    if (p.positionals.length > 0) throw new UsageError(`Unexpected argument "${p.positionals[0]}"`);
    const rawDays = flagValue(p, 'days');
    if (rawDays === undefined) throw new UsageError('Give --days N: entries older than N days are archived or deleted');
    if (!/^\d+$/.test(rawDays.trim())) throw new UsageError(`--days must be a whole number of days, got "${rawDays}"`);
    if (flagSet(p, 'archive') === flagSet(p, 'delete')) throw new UsageError('Give either --archive (recoverable) or --delete');
    const action = flagSet(p, 'archive') ? 'archive' : 'delete';
    const projectId = flagValue(p, 'project');
    const transfer = await ctx.services.transfer();
    const plan = await transfer.planRetention({ days: Number(rawDays), action, ...(projectId !== undefined ? { projectId } : {}) });
    const where = projectId ? ` in ${projectId}` : '';
    if (!flagSet(p, 'yes') || plan.count === 0) {
      if (flagSet(p, 'json')) ctx.out.json({ ...plan, removed: 0, done: false });
      else if (plan.count === 0) ctx.out.line(`No entries${where} are older than ${plan.days} days (created before ${plan.before}).`);
      else
        ctx.out.line(
          `${plan.count} ${plan.count === 1 ? 'entry' : 'entries'}${where} older than ${plan.days} days would be ${action}d (written to a JSON file first). Run again with --yes to do it.`,
        );
      return;
    }
    const exportOption = flagValue(p, 'export');
    const result = await transfer.applyRetention(plan, exportOption !== undefined ? { exportFile: path.resolve(ctx.cwd, exportOption) } : {});
    if (flagSet(p, 'json')) ctx.out.json({ ...result, done: true });
    else
      ctx.out.line(
        `${action === 'archive' ? 'Archived' : 'Deleted'} ${result.removed} ${result.removed === 1 ? 'entry' : 'entries'}${where} older than ${plan.days} days; they were written first to ${result.exportFile}`,
      );
  },
};

const restoreArchivedCommand: Command = {
  name: 'restore-archived',
  summary: 'bring archived entries back into the log',
  group: 'Ledger',
  usage: `Usage: agent-progress restore-archived [--project ID] [--json]

Moves entries archived by a retention run back into the progress log (search, get_context, views).

Options:
  --project ID   only this project's archived entries (default: all)
  --json         print the count as JSON`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { project: { value: true, alias: 'p' }, json: {} });
    if (p.positionals.length > 0) throw new UsageError(`Unexpected argument "${p.positionals[0]}"`);
    const projectId = flagValue(p, 'project');
    const restored = await (await ctx.services.transfer()).restoreArchived(projectId);
    if (flagSet(p, 'json')) ctx.out.json({ restored });
    else ctx.out.line(`Restored ${restored} archived ${restored === 1 ? 'entry' : 'entries'}${projectId ? ` of ${projectId}` : ''}.`);
  },
};

const recoverLedgerCommand: Command = {
  name: 'recover-ledger',
  summary: 'bring back the intact writes after a damaged spot in the journal',
  group: 'Ledger',
  usage: `Usage: agent-progress recover-ledger [--json]

A damaged byte in the ledger's journal hides every write after it (a warning names the file and
the offset). This sets the damaged tail aside (data.db.journal.tail-*), finds every intact write in
it and in tails set aside before, and writes them to the ledger again. A write that no longer
applies (already there, or it needed the damaged one) is skipped and named. Each file is kept,
renamed *.recovered.

Options:
  --json   print what was recovered as JSON`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { json: {} });
    if (p.positionals.length > 0) throw new UsageError(`Unexpected argument "${p.positionals[0]}"`);
    const result = await (await ctx.services.ledger()).recoverSetAside();
    if (flagSet(p, 'json')) {
      ctx.out.json(result);
      return;
    }
    for (const line of recoveryLines(result)) ctx.out.line(line);
  },
};

export const LEDGER_COMMANDS: readonly Command[] = [exportCommand, importCommand, retentionCommand, restoreArchivedCommand, recoverLedgerCommand];
