// Inter-process lock around every ledger write: a file created with O_EXCL that names its owner.
// A lock whose owner died (kill -9) is broken safely, under a second "breaker" lock, so two
// waiters never both break it. Knows nothing of SQL or journals.

import * as fs from 'node:fs';
import * as os from 'node:os';
import { randomBytes } from 'node:crypto';
import { LedgerError } from '../errors';
import type { Logger } from '../log';
import { FILE_MODE } from './files';
import { readRegularTextSync } from '../regularFile';

interface Owner {
  pid: number;
  host: string;
  at: number;
  token: string;
}

/** A holder that keeps the lock longer than this is taken as gone (pid reused, other host). */
const MAX_HOLD_MS = 120_000;
/** An owner file still empty after this long belongs to a process that died while creating it. */
const EMPTY_GRACE_MS = 5_000;
const BREAKER_GRACE_MS = 5_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Whether `pid` runs. A process killed while its parent lives on without reaping it (or whose
 * parent exited into an init that never reaps) is a zombie: dead, although signal 0 reaches it.
 * A ledger host killed with -9 while holding the lock was such a zombie, and its lock held every
 * write back for the 2 minutes of MAX_HOLD_MS.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform === 'linux') {
    try {
      return !/\) [ZX] /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  }
  return true;
}

export class FileLock {
  private readonly host = os.hostname();
  /** Tokens tell one holding from the next: random per handle, counted per attempt (no entropy read per write). */
  private readonly tokenPrefix = `${randomBytes(6).toString('hex')}-`;
  private acquisitions = 0;
  private heldToken: string | undefined;

  constructor(
    readonly lockPath: string,
    private readonly logger: Logger,
    private readonly timeoutMs = 30_000,
  ) {}

  get held(): boolean {
    return this.heldToken !== undefined;
  }

  /**
   * Takes the lock at once if it is free. The owner is written to a temp file first and
   * hard-linked into place, so the lock never exists empty: a holder killed while taking it left
   * an empty file that every waiter had to wait out (5 s) before breaking it.
   */
  tryAcquire(): boolean {
    const token = `${this.tokenPrefix}${(this.acquisitions += 1)}`;
    const owner: Owner = { pid: process.pid, host: this.host, at: Date.now(), token };
    const tmp = `${this.lockPath}.${token}`;
    try {
      fs.writeFileSync(tmp, JSON.stringify(owner), { mode: FILE_MODE, flag: 'wx' });
    } catch (err) {
      throw new LedgerError(
        'unavailable',
        `Cannot create the ledger lock ${this.lockPath}: ${(err as NodeJS.ErrnoException).code ?? String(err)}. Check that its folder is writable.`,
        { retryable: true },
      );
    }
    try {
      fs.linkSync(tmp, this.lockPath);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV')
        throw new LedgerError('unavailable', `Cannot create the ledger lock ${this.lockPath}: ${code ?? String(err)}. Check that its folder is writable.`, { retryable: true });
      // No hard links on this file system: exclusive create, then write.
      if (!this.createAndWrite(owner)) return false;
    } finally {
      try {
        fs.unlinkSync(tmp);
      } catch {
        // gone already
      }
    }
    this.heldToken = token;
    return true;
  }

  private createAndWrite(owner: Owner): boolean {
    let fd: number;
    try {
      fd = fs.openSync(this.lockPath, 'wx', FILE_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw new LedgerError(
        'unavailable',
        `Cannot create the ledger lock ${this.lockPath}: ${(err as NodeJS.ErrnoException).code ?? String(err)}. Check that its folder is writable.`,
        { retryable: true },
      );
    }
    try {
      fs.writeSync(fd, JSON.stringify(owner));
    } finally {
      fs.closeSync(fd);
    }
    return true;
  }

  async acquire(): Promise<void> {
    if (this.heldToken !== undefined) throw new LedgerError('internal', 'The ledger lock is already held by this handle');
    if (this.tryAcquire()) return;
    const started = Date.now();
    let delay = 0;
    let nextStaleCheck = 0;
    for (;;) {
      const now = Date.now();
      if (now >= nextStaleCheck) {
        this.breakIfStale();
        nextStaleCheck = now + 100;
      }
      if (this.tryAcquire()) return;
      if (now - started > this.timeoutMs) {
        const owner = this.readOwner();
        throw new LedgerError(
          'unavailable',
          `The ledger is busy: another process (${owner && owner !== 'empty' ? `pid ${owner.pid}` : 'unknown'}) has held its lock for over ${Math.round(this.timeoutMs / 1000)} s. Retry; if it persists, close the other agent or delete ${this.lockPath}.`,
          { retryable: true },
        );
      }
      // Holders keep the lock for about a millisecond: start with a yield, then poll every 1-2 ms
      // (an open() that fails costs microseconds), with jitter so that waiters do not move in step.
      await (delay === 0 ? new Promise<void>((r) => setImmediate(r)) : sleep(delay + (Math.random() < 0.5 ? 0 : 1)));
      delay = delay === 0 ? 1 : Math.min(delay + 1, 2);
    }
  }

  /**
   * Lets go of the lock, removing the lock file only while it is still this holding's (its token):
   * a lock file at the path that another process put there (the ledger's folder was replaced
   * under a ledger host whose lock lingered, or the lock was broken as stale and taken again) is
   * never removed.
   */
  release(): void {
    const token = this.heldToken;
    if (token === undefined) return;
    this.heldToken = undefined;
    const owner = this.readOwner();
    if (owner === undefined || owner === 'empty' || owner.token !== token) return;
    try {
      fs.unlinkSync(this.lockPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  private readOwner(file = this.lockPath): Owner | 'empty' | undefined {
    let text: string;
    try {
      text = readRegularTextSync(file, { maxBytes: 64 << 10, what: 'The ledger lock' });
    } catch {
      return undefined;
    }
    if (text.length === 0) return 'empty';
    try {
      const o = JSON.parse(text) as Owner;
      return typeof o.pid === 'number' && typeof o.token === 'string' ? o : 'empty';
    } catch {
      return 'empty';
    }
  }

  private isStale(owner: Owner | 'empty', file: string): boolean {
    if (owner === 'empty') {
      try {
        return Date.now() - fs.statSync(file).mtimeMs > EMPTY_GRACE_MS;
      } catch {
        return false;
      }
    }
    if (Date.now() - owner.at > MAX_HOLD_MS) return true;
    if (owner.host === this.host && owner.pid !== process.pid) return !processAlive(owner.pid);
    return false;
  }

  /** Removes the lock file if its owner is gone. Only one process breaks it at a time. */
  private breakIfStale(): void {
    const seen = this.readOwner();
    if (seen === undefined || !this.isStale(seen, this.lockPath)) return;
    const breaker = `${this.lockPath}.break`;
    let fd: number;
    try {
      fd = fs.openSync(breaker, 'wx', FILE_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return;
      try {
        if (Date.now() - fs.statSync(breaker).mtimeMs > BREAKER_GRACE_MS) fs.unlinkSync(breaker);
      } catch {
        // another process removed it first
      }
      return;
    }
    fs.closeSync(fd);
    try {
      // Re-read under the breaker: the lock may have changed hands since it was judged stale.
      const now = this.readOwner();
      const same = now !== undefined && (now === 'empty' ? seen === 'empty' : seen !== 'empty' && now.token === seen.token);
      if (same && this.isStale(now, this.lockPath)) {
        fs.unlinkSync(this.lockPath);
        this.logger.warn(`Broke a stale ledger lock left by ${seen === 'empty' ? 'a process that died while taking it' : `pid ${seen.pid} on ${seen.host}`}`);
      }
    } catch {
      // the lock vanished on its own
    } finally {
      try {
        fs.unlinkSync(breaker);
      } catch {
        // removed by a waiter that judged it stale
      }
    }
  }
}
