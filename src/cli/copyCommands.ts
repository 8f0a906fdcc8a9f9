// The CLI command that copies a whole ledger between backends: a local ledger file into
// PostgreSQL (a team moving to a shared database) and back, with a count check per collection.
// A thin wrapper over core/storage/copyLedger, like the editor's "Copy Ledger" command.

import * as path from 'node:path';
import type * as CopyLedgerModule from '../core/storage/copyLedger';
import { isPostgresUrl } from '../core/storage/postgres/url';
import { flagSet, flagValue, parseArgv, UsageError } from './args';
import type { Command } from './command';

const copyLedgerCommand: Command = {
  name: 'copy-ledger',
  summary: 'copy a whole ledger between a file and PostgreSQL, with a count check',
  group: 'Ledger',
  usage: `Usage: agent-progress copy-ledger --from FILE|URL --to FILE|URL [--force] [--json]

Copies every toolset's records (progress entries and archived entries, queue projects, task types,
tasks, attempts, agents and audit, workflows, review runs) from one ledger to another: a ledger
file and a PostgreSQL database (postgres://user:password@host:5432/db), either way. The copy is
one transaction on the target; afterwards every collection is counted again on the target and a
mismatch fails the command. Agent transcripts are not in the ledger and are not copied.

A target that already holds records is refused, and nothing is copied, unless --force: then the
records are added to it, and one that already exists there (same id) refuses the whole copy.
The password of a connection string is never printed.

Options:
  --from FILE|URL   the ledger to copy (a file must exist)
  --to FILE|URL     the ledger to copy into (a file is created if missing)
  --force           copy into a target that already holds records
  --json            print the counts per collection as JSON`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { from: { value: true }, to: { value: true }, force: {}, json: {} });
    if (p.positionals.length > 0) throw new UsageError(`Unexpected argument "${p.positionals[0]}" (give the ledgers with --from and --to)`);
    const where = (flag: 'from' | 'to'): string => {
      const v = flagValue(p, flag);
      if (v === undefined || v.trim() === '') throw new UsageError(`--${flag} is required: a ledger file path or a postgres:// connection string`);
      return isPostgresUrl(v) ? v.trim() : path.resolve(ctx.cwd, v);
    };
    // The engine loads for this command only.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs (ARCHITECTURE.md, "Bundles and the start path")
    const { copyLedger } = require('../core/storage/copyLedger') as typeof CopyLedgerModule;
    const result = await copyLedger({ from: where('from'), to: where('to'), force: flagSet(p, 'force'), logger: ctx.services.logger });
    if (flagSet(p, 'json')) {
      ctx.out.json(result);
      return;
    }
    const copied = result.counts.filter((c) => c.copied > 0 || c.source > 0);
    ctx.out.line(`Copied ${result.total} records from ${result.from} to ${result.to}; counts checked:`);
    for (const c of copied)
      ctx.out.line(`  ${c.collection.padEnd(18)} source ${String(c.source).padStart(7)}  copied ${String(c.copied).padStart(7)}  target ${String(c.after).padStart(7)}`);
    if (copied.length === 0) ctx.out.line('  (the source ledger is empty)');
  },
};

export const COPY_COMMANDS: readonly Command[] = [copyLedgerCommand];
