// What a recovery of set-aside journal tails did, in lines a person reads: shared by the CLI's
// recover-ledger and the editor's Recover Set-Aside Ledger Writes so both say the same.

import type { TailRecovery } from './store';

export function recoveryLines(result: TailRecovery): string[] {
  if (result.files.length === 0) return [`Nothing to recover: no damaged journal tail is set aside beside ${result.journal}.`];
  const lines: string[] = [];
  for (const f of result.files) {
    if (f.refused !== undefined) {
      lines.push(`${f.file}: ${f.refused}.`);
      continue;
    }
    const writes = (n: number): string => `${n} ${n === 1 ? 'write' : 'writes'}`;
    lines.push(
      `Recovered ${writes(f.applied)} of ${f.records} intact in ${f.file} (${f.damagedBytes} damaged ${f.damagedBytes === 1 ? 'byte' : 'bytes'} skipped); kept as ${f.keptAs}.`,
    );
    for (const s of f.skipped) lines.push(`  skipped the write of ${s.time}: ${s.reason}`);
  }
  return lines;
}

/** One line for a notification: the totals over every file. */
export function recoverySummary(result: TailRecovery): string {
  if (result.files.length === 0) return 'nothing to recover: no damaged journal tail is set aside.';
  const applied = result.files.reduce((n, f) => n + f.applied, 0);
  const skipped = result.files.reduce((n, f) => n + f.skipped.length, 0);
  const refused = result.files.filter((f) => f.refused !== undefined).length;
  return `recovered ${applied} ${applied === 1 ? 'write' : 'writes'} from ${result.files.length} set-aside journal ${result.files.length === 1 ? 'tail' : 'tails'}${skipped > 0 ? `; ${skipped} no longer applied` : ''}${refused > 0 ? `; ${refused} too large to read` : ''}.`;
}
