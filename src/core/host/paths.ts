// Where the ledger host of a ledger file lives: a private folder `<ledger>.host/` (0700) beside
// the canonical ledger path, holding the host's pid file, its token (0600) and, when the path is
// short enough for a Unix socket, the socket itself; else the socket sits in a private folder of
// the user's runtime directory, named by a hash of the canonical path. On Windows a named pipe.
// A PostgreSQL ledger's host has its folder in that runtime directory, named by a hash of the URL.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LedgerError } from '../errors';
import { DIR_MODE } from '../storage/files';
import { redactUrl } from '../storage/postgres/url';

export interface HostPaths {
  /** The canonical ledger path this host serves; for PostgreSQL, its connection string with the password redacted (shown, never used). */
  ledger: string;
  /**
   * A PostgreSQL ledger: its connection string, given to the host through its environment and
   * never on a command line or in a file (hostPathsForUrl).
   */
  databaseUrl?: string;
  dir: string;
  socket: string;
  pid: string;
  token: string;
  startLock: string;
  /** Names the standby: a second host process, modules loaded, that takes over when the host dies. */
  standby: string;
  /** Left by a host handing over to a newer build: older starters wait for that build's host. */
  handover: string;
  log: string;
}

/** sun_path holds 108 bytes on Linux, 104 on macOS; keep a margin. */
const MAX_SOCKET_PATH = 100;

/** The ledger path with its folder resolved through symlinks: one host per file, however it is named. */
export function canonicalLedgerPath(file: string): string {
  const absolute = path.resolve(file);
  try {
    return path.join(fs.realpathSync.native(path.dirname(absolute)), path.basename(absolute));
  } catch {
    return absolute;
  }
}

export function hostPaths(file: string): HostPaths {
  const ledger = canonicalLedgerPath(file);
  const dir = `${ledger}.host`;
  const hash = createHash('sha256').update(ledger).digest('hex').slice(0, 24);
  let socket: string;
  if (process.platform === 'win32') socket = `\\\\.\\pipe\\agent-progress-${hash}`;
  else if (Buffer.byteLength(path.join(dir, 'sock')) <= MAX_SOCKET_PATH) socket = path.join(dir, 'sock');
  else socket = path.join(runtimeDir(), `${hash}.sock`);
  return { ledger, dir, socket, ...folderFiles(dir) };
}

/** The files a host folder holds beside its socket. */
function folderFiles(dir: string): Pick<HostPaths, 'pid' | 'token' | 'startLock' | 'standby' | 'handover' | 'log'> {
  return {
    pid: path.join(dir, 'host.pid'),
    token: path.join(dir, 'token'),
    startLock: path.join(dir, 'start.lock'),
    standby: path.join(dir, 'standby.pid'),
    handover: path.join(dir, 'handover'),
    log: path.join(dir, 'host.log'),
  };
}

/**
 * What names a PostgreSQL ledger's host: the parts of a connection string that say where it
 * connects and as whom, written one way (`postgresql:` as `postgres:`, the host in lower case, the
 * default port spelled out, escapes decoded, the parameters sorted), so that two spellings of one
 * login and database (VS Code's setting, an agent's environment) share one host. Anything that is
 * not a postgres URL is taken as it is written.
 */
function connectionKey(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') return url;
  const decode = (text: string): string => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  const params = [...u.searchParams].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  return JSON.stringify(['postgres', decode(u.username), decode(u.password), decode(u.hostname).toLowerCase(), u.port || '5432', decode(u.pathname), params]);
}

/**
 * Where the ledger host of a PostgreSQL ledger lives: a private folder of the user's runtime
 * directory named by a hash of the whole connection string (connectionKey; one host per machine, user and
 * database, and credentials: a client never borrows another connection string's login). The
 * folder and its socket are made and checked as a ledger file's are; no file of the database is.
 */
export function hostPathsForUrl(url: string): HostPaths {
  const databaseUrl = url.trim();
  const hash = createHash('sha256').update(connectionKey(databaseUrl)).digest('hex').slice(0, 24);
  const dir = path.join(runtimeDir(), `pg-${hash}`);
  const socket = process.platform === 'win32' ? `\\\\.\\pipe\\agent-progress-pg-${hash}` : path.join(dir, 'sock');
  return { ledger: redactUrl(databaseUrl), databaseUrl, dir, socket, ...folderFiles(dir) };
}

/**
 * The folder a host serves while it stays the same folder (`folderIdentity`): the ledger file's
 * folder, or for a PostgreSQL ledger, which has none, the host's own folder.
 */
export function servedFolder(paths: HostPaths): string {
  return paths.databaseUrl ? paths.dir : path.dirname(paths.ledger);
}

/** The user's private folder of ledger hosts' sockets (long ledger paths) and PostgreSQL hosts. */
export function runtimeDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const base = process.env.XDG_RUNTIME_DIR && path.isAbsolute(process.env.XDG_RUNTIME_DIR) ? process.env.XDG_RUNTIME_DIR : os.tmpdir();
  return path.join(base, `agent-progress-${uid}`);
}

/**
 * Checks that the host folder `dir` is a real folder of this user that no one else can enter (a
 * shared temp folder could hold one planted by another user); with `create`, makes it 0700 first
 * when missing. Never makes the ledger's folder above it: a ledger folder removed while its
 * clients ran stays removed (only the first open of a ledger makes it, `openHostLedger`).
 */
export function ensureOwnPrivateDir(dir: string, create: boolean): void {
  if (create) {
    try {
      fs.mkdirSync(dir, { mode: DIR_MODE });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw ledgerFolderGone(path.dirname(dir));
      if (code !== 'EEXIST') throw err;
    }
  }
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new LedgerError('unavailable', `The ledger host folder ${dir} is gone.`);
    throw err;
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) {
    throw new LedgerError('permission_denied', `${dir} is not a folder of this user; remove it so that the ledger host can use it.`);
  }
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) fs.chmodSync(dir, DIR_MODE);
}

export function ledgerFolderGone(dir: string): LedgerError {
  return new LedgerError(
    'unavailable',
    `The ledger folder ${dir} is gone: it was removed while this process used the ledger, and is not made again. Restart this process to start a new ledger there.`,
  );
}
