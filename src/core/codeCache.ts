// The CLI's and the servers' start with a V8 code cache (ARCHITECTURE.md, "Bundles and the start
// path"): dist/cli.js and dist/server.js are small launchers that run their bundle
// (dist/cli-main.js, dist/server-main.js) as Node would, compiled with V8's cached data from an
// earlier run, so V8 neither parses the whole bundle nor compiles again the functions a start runs.
//
// The cache is the user's own: a folder in the user's cache directory (never beside the bundle,
// which may sit in a workspace or a read-only install), made 0700 and used only when it is a
// directory owned by the user that no one else may write. A cache file is named by everything its
// bytecode depends on: the runtime (Node, V8, Electron, arch, the V8 flags on the command line) and
// the bundle file (path, size, mtime, inode), so another runtime (VS Code's Electron as node) or
// another build never reads it. V8 checks its own version and flags again and rejects data that does
// not fit; any failure (no home, a read-only disk, a rejected or corrupt file) falls back, silently,
// to compiling the bundle as Node would. A start that used no cache writes one, once: when the
// process exits, or 3 s after start for a server that lives on. AGENT_PROGRESS_CODE_CACHE=off turns
// it off; an absolute path there names the folder instead.

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { markMainBundle } from './mainBundle';

/** The folder of the user's code caches, or undefined when there is none to use. */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home: string = os.homedir()): string | undefined {
  const setting = env.AGENT_PROGRESS_CODE_CACHE?.trim();
  if (setting === 'off') return undefined;
  if (setting) return path.isAbsolute(setting) ? setting : undefined;
  if (platform === 'win32') return env.LOCALAPPDATA && path.isAbsolute(env.LOCALAPPDATA) ? path.join(env.LOCALAPPDATA, 'agent-progress', 'code-cache') : undefined;
  if (!home || !path.isAbsolute(home)) return undefined;
  if (platform === 'darwin') return path.join(home, 'Library', 'Caches', 'agent-progress', 'code');
  const xdg = env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.cache'), 'agent-progress', 'code');
}

/** `dir`, made if missing, when it is a directory of this user's that no other user may write. */
function ownDir(dir: string): boolean {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory()) return false;
  if (process.platform === 'win32') return true;
  return stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
}

/** The cache file of `bundle` and `variant` for this runtime: a name that changes with the runtime and the file. */
function cacheFile(dir: string, bundle: string, variant: string, stat: fs.Stats): string {
  const key = JSON.stringify([
    process.version,
    process.versions.v8,
    process.versions.electron ?? '',
    process.arch,
    process.execArgv,
    bundle,
    stat.size,
    stat.mtimeMs,
    stat.ino,
    variant,
  ]);
  return path.join(dir, `${path.basename(bundle, '.js')}-${crypto.createHash('sha256').update(key).digest('hex').slice(0, 32)}.bin`);
}

function readCache(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Runs `bundle` (a CommonJS file) as the process's main module, as `node bundle` would, with V8's
 * code cache when one can be used. A cache holds the functions its first run compiled, so each
 * `variant` (a CLI command, a server's toolsets) has its own. When anything this needs of Node's
 * module internals fails (another runtime, another Node), the bundle is required as Node would
 * without a cache; errors of the bundle itself are never retried.
 */
export function runBundle(bundle: string, variant: string): void {
  let run: (() => void) | undefined;
  try {
    run = prepare(bundle, variant);
  } catch {
    run = undefined;
  }
  if (run) return run();
  markMainBundle(bundle);
  module.require(bundle);
}

/** Compiles `bundle` with the cache and makes it the main module; returns what runs it. Changes nothing when it throws. */
function prepare(bundle: string, variant: string): () => void {
  // The build keeps every bundle ASCII (esbuild.mjs keepAscii), so Latin-1 reads it exactly, at a fraction of UTF-8's cost.
  const source = fs.readFileSync(bundle, 'latin1');
  let file: string | undefined;
  try {
    const dir = codeCacheDir();
    if (dir !== undefined && ownDir(dir)) file = cacheFile(dir, bundle, variant, fs.statSync(bundle));
  } catch {
    file = undefined;
  }
  const cachedData = file === undefined ? undefined : readCache(file);
  // Module.wrap is Node's own CommonJS wrapper; a `#!` line is allowed only at the very start of a script.
  const script = new vm.Script(Module.wrap(source.replace(/^#!.*/, '')), { filename: bundle, ...(cachedData ? { cachedData } : {}) });
  type Internal = typeof Module & { _nodeModulePaths(dir: string): string[]; _cache: Record<string, NodeJS.Module> };
  const internal = Module as Internal;
  const main = new Module(bundle, module) as NodeJS.Module & { paths: string[]; filename: string };
  main.filename = bundle;
  main.paths = internal._nodeModulePaths(path.dirname(bundle));
  const req = ((id: string) => main.require(id)) as NodeJS.Require;
  req.main = main;
  req.cache = internal._cache;
  req.resolve = ((request: string) => require.resolve(request, { paths: [path.dirname(bundle)] })) as NodeJS.RequireResolve;
  const compiled = script.runInThisContext() as (...args: unknown[]) => void;
  if (typeof compiled !== 'function') throw new TypeError('the wrapped bundle is not a function');
  internal._cache[bundle] = main;
  if (file !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) saveLater(script, file);
  return () => {
    compiled.call(main.exports, main.exports, req, main, bundle, path.dirname(bundle));
    main.loaded = true;
  };
}

/** Writes the script's cache once: when the process exits, or 3 s after start for a process that lives on. */
function saveLater(script: vm.Script, target: string): void {
  let saved = false;
  const save = (): void => {
    if (saved) return;
    saved = true;
    const temp = `${target}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
      fs.renameSync(temp, target);
    } catch {
      try {
        fs.rmSync(temp, { force: true });
      } catch {
        // nothing was written
      }
    }
  };
  process.once('exit', save);
  setTimeout(save, 3_000).unref();
}
