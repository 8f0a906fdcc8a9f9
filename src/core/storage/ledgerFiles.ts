// What may stand at a ledger's paths, checked without loading the engine: a device, a FIFO or a
// socket there, or a file that is not ours (a person's text file, another program's SQLite
// database, a journal without our magic number), is refused with a message naming it and left
// untouched. The engine checks the same as it opens; a client of the ledger host checks first, so
// that a refused path gains no host folder beside it.

import * as fs from 'node:fs';
import { LedgerError } from '../errors';
import { notRegular, openRegularSync, specialKind } from '../regularFile';
import { JOURNAL_MAGIC } from './sqlite/journal';

/** The first 16 bytes of every SQLite database file. */
export const SQLITE_MAGIC = 'SQLite format 3\0';
/** PRAGMA application_id of a ledger snapshot: "APLG". */
export const APPLICATION_ID = 0x41504c47;

export function notALedger(file: string): LedgerError {
  return new LedgerError(
    'invalid_argument',
    `${file} is not an Agent Progress ledger (it is not a SQLite database). It was left untouched; choose another ledger path (AGENT_PROGRESS_DB_PATH, --db), or move the file away if it is a damaged ledger.`,
    { details: { path: file } },
  );
}

export function notOurDatabase(file: string): LedgerError {
  return new LedgerError(
    'invalid_argument',
    `${file} is a SQLite database but not an Agent Progress ledger. It was left untouched; choose another ledger path (AGENT_PROGRESS_DB_PATH).`,
  );
}

export function notAJournal(journal: string): LedgerError {
  return new LedgerError(
    'invalid_argument',
    `${journal} is not an Agent Progress journal. It was left untouched; choose another ledger path (AGENT_PROGRESS_DB_PATH, --db) or move that file away.`,
    { details: { path: journal } },
  );
}

/** Throws when a device, a FIFO or a socket stands at the ledger's path, journal or lock. */
export function refuseSpecialFiles(file: string): void {
  for (const [p, what] of [
    [file, 'The ledger path'],
    [`${file}.journal`, 'The ledger journal'],
    [`${file}.lock`, 'The ledger lock'],
  ] as const) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(p);
    } catch {
      st = undefined;
    }
    const kind = st && specialKind(st);
    if (kind) throw notRegular(p, what, kind);
  }
}

/** Up to `n` first bytes of a regular file; undefined when it cannot be read (absent, no permission). */
function head(file: string, what: string, n: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openRegularSync(file, what);
  } catch (err) {
    if (err instanceof LedgerError) throw err;
    return undefined;
  }
  try {
    const bytes = Buffer.alloc(n);
    return bytes.subarray(0, fs.readSync(fd, bytes, 0, n, 0));
  } finally {
    fs.closeSync(fd);
  }
}

/** True when the journal beside the ledger starts with our magic number (whatever else is wrong with it). */
export function journalIsOurs(journal: string): boolean {
  try {
    const bytes = head(journal, 'The ledger journal', 4);
    return bytes !== undefined && bytes.length === 4 && bytes.readUInt32LE(0) === JOURNAL_MAGIC;
  } catch {
    return false;
  }
}

/**
 * Refuses, before anything is created beside it, a ledger path the engine would refuse: special
 * files, a file that is not a SQLite database (unless our journal shows it is a damaged ledger of
 * ours), another program's database, a journal that is not ours. What cannot be read is left to
 * the engine to report.
 */
export function refuseForeignLedgerPaths(file: string): void {
  refuseSpecialFiles(file);
  const journal = `${file}.journal`;
  const snapshot = head(file, 'The ledger path', 100);
  if (snapshot) {
    if (snapshot.length < 16 || snapshot.toString('latin1', 0, 16) !== SQLITE_MAGIC) {
      if (!journalIsOurs(journal)) throw notALedger(file);
    } else if (snapshot.length >= 100 && snapshot.readUInt32BE(68) !== APPLICATION_ID) {
      throw notOurDatabase(file);
    }
  }
  const journalHead = head(journal, 'The ledger journal', 4);
  if (journalHead && journalHead.length === 4 && journalHead.readUInt32LE(0) !== JOURNAL_MAGIC) throw notAJournal(journal);
}
