// Snapshots of a folder outside git: every file's MD5 (the specification's checksum snapshot) with its
// stat data, walking the tree while honouring .gitignore files at every level. A previous
// manifest of the same folder serves as a cache: files whose stat data did not change since it
// was taken are not read again. Also the diff of two manifests, with exact renames.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readRegularFileSync, readRegularTextSync } from '../regularFile';
import { isIgnored, parseIgnoreFile, type IgnoreLayer } from './ignore';

export interface ManifestEntry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** 'f' a file, 'x' an executable file, 'l' a symbolic link (hash of its target). */
  kind: 'f' | 'x' | 'l';
  hash: string;
}

export interface Manifest {
  root: string;
  /** When the walk started (ms since the epoch): the cache is trusted only for files older than this. */
  takenAt: number;
  files: Map<string, ManifestEntry>;
}

export interface ChecksumOptions {
  /** An earlier manifest of the same root: unchanged files are not read again. */
  cache?: Manifest | undefined;
  /** Folder names never walked, whatever .gitignore says. */
  alwaysExclude?: readonly string[];
  /** Absolute paths never walked (the ledger's own folder, when it sits inside the root). */
  excludePaths?: readonly string[];
  /** Refuse trees with more files than this (a home folder by mistake). */
  maxFiles?: number;
}

export interface ChecksumResult {
  manifest: Manifest;
  hashed: number;
  reused: number;
  tookMs: number;
}

export class TooManyFiles extends Error {
  constructor(
    readonly root: string,
    readonly limit: number,
  ) {
    super(`${root} holds more than ${limit.toLocaleString('en-US')} files that no .gitignore excludes`);
    this.name = 'TooManyFiles';
  }
}

export const DEFAULT_EXCLUDES = ['.git', '.hg', '.svn', 'node_modules'];
export const DEFAULT_MAX_FILES = 200_000;
/** A cached hash is trusted only for files last modified this long before the cache was taken (coarse file-system clocks). */
const RACY_MS = 2_000;
const STREAM_ABOVE = 8 << 20;
/** A .gitignore larger than this is not read (a symlink to /dev/zero would never end). */
const MAX_IGNORE_BYTES = 1 << 20;

/** Streams a large file through the hash without blocking the event loop for its whole length. */
function hashLargeFile(file: string): Promise<string> {
  const hash = createHash('md5');
  return new Promise<string>((resolve, reject) => {
    const stream = fs.createReadStream(file);
    stream.on('data', (chunk) => hash.update(chunk));
    stream.on('end', () => resolve(hash.digest('hex')));
    stream.on('error', reject);
  });
}

/** Work done synchronously between two yields to the event loop (the server stays responsive). */
const SLICE_MS = 20;

interface DirItem {
  kind: 'dir';
  rel: string;
  layers: IgnoreLayer[];
}
interface FileItem {
  kind: 'file';
  rel: string;
}

/**
 * Walks `root` and checksums every file that no .gitignore (and no default exclude) leaves out.
 * Synchronous file calls in slices of ~20 ms, then a yield: several times faster than one
 * promise per call on trees of small files, and other requests still get their turn.
 */
export async function checksumSnapshot(root: string, options: ChecksumOptions = {}): Promise<ChecksumResult> {
  const started = Date.now();
  const takenAt = Date.now();
  const files = new Map<string, ManifestEntry>();
  const always = new Set(options.alwaysExclude ?? DEFAULT_EXCLUDES);
  const excluded = new Set((options.excludePaths ?? []).map((p) => path.resolve(p)));
  const maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
  const cache = options.cache && path.resolve(options.cache.root) === path.resolve(root) ? options.cache : undefined;
  let hashed = 0;
  let reused = 0;
  let seen = 0;

  const abs = (rel: string): string => (rel === '' ? root : path.join(root, rel));
  const queue: (DirItem | FileItem)[] = [{ kind: 'dir', rel: '', layers: [] }];
  let slice = performance.now();

  const visitDir = (item: DirItem): void => {
    const dir = abs(item.rel);
    let layers = item.layers;
    try {
      const rules = parseIgnoreFile(readRegularTextSync(path.join(dir, '.gitignore'), { maxBytes: MAX_IGNORE_BYTES, what: 'The .gitignore' }));
      if (rules.length > 0) layers = [...layers, { base: item.rel, rules }];
    } catch {
      // no .gitignore here
    }
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      if (item.rel === '') throw err;
      return; // a folder that vanished or cannot be read: like git, skip it
    }
    for (const entry of entries) {
      const rel = item.rel === '' ? entry.name : `${item.rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (always.has(entry.name) || excluded.has(abs(rel)) || isIgnored(layers, rel, true)) continue;
        queue.push({ kind: 'dir', rel, layers });
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        if (isIgnored(layers, rel, false)) continue;
        if (++seen > maxFiles) throw new TooManyFiles(root, maxFiles);
        queue.push({ kind: 'file', rel });
      }
    }
  };

  const visitFile = async (item: FileItem): Promise<void> => {
    const file = abs(item.rel);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(file);
    } catch {
      return; // deleted while we walked
    }
    if (!st.isFile() && !st.isSymbolicLink()) return;
    const kind: ManifestEntry['kind'] = st.isSymbolicLink() ? 'l' : st.mode & 0o111 ? 'x' : 'f';
    const known = cache?.files.get(item.rel);
    let hash: string;
    if (
      known &&
      known.kind === kind &&
      known.size === st.size &&
      known.mtimeMs === st.mtimeMs &&
      known.ctimeMs === st.ctimeMs &&
      known.ino === st.ino &&
      st.mtimeMs < cache!.takenAt - RACY_MS
    ) {
      hash = known.hash;
      reused++;
    } else {
      try {
        if (kind === 'l') hash = createHash('md5').update(fs.readlinkSync(file)).digest('hex');
        else if (st.size > STREAM_ABOVE) hash = await hashLargeFile(file);
        else
          hash = createHash('md5')
            .update(readRegularFileSync(file, { maxBytes: STREAM_ABOVE, what: 'The file' }))
            .digest('hex');
      } catch {
        return; // unreadable or gone: left out, as git add --ignore-errors would
      }
      hashed++;
    }
    files.set(item.rel, { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, kind, hash });
  };

  while (queue.length > 0) {
    const item = queue.pop()!;
    if (item.kind === 'dir') visitDir(item);
    else await visitFile(item);
    if (performance.now() - slice > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
  }
  return { manifest: { root, takenAt, files }, hashed, reused, tookMs: Date.now() - started };
}

export interface ManifestChange {
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  path: string;
  from?: string;
  similarity?: number;
}

/** What changed from manifest `a` to manifest `b`; a file that moved unchanged is a rename. */
export function diffManifests(a: Manifest, b: Manifest): ManifestChange[] {
  const added: string[] = [];
  const deleted: string[] = [];
  const changes: ManifestChange[] = [];
  for (const [file, entry] of b.files) {
    const before = a.files.get(file);
    if (!before) added.push(file);
    else if (before.hash !== entry.hash || before.kind !== entry.kind) changes.push({ status: 'modified', path: file });
  }
  for (const file of a.files.keys()) if (!b.files.has(file)) deleted.push(file);
  // Exact renames: a deleted file whose content reappears under a new name (empty files never pair).
  const gone = new Map<string, string[]>();
  for (const file of deleted) {
    const entry = a.files.get(file)!;
    if (entry.size === 0) continue;
    const list = gone.get(entry.hash) ?? [];
    list.push(file);
    gone.set(entry.hash, list);
  }
  const renamedFrom = new Set<string>();
  for (const file of added) {
    const entry = b.files.get(file)!;
    const candidates = entry.size === 0 ? undefined : gone.get(entry.hash);
    const from = candidates?.shift();
    if (from !== undefined) {
      renamedFrom.add(from);
      changes.push({ status: 'renamed', path: file, from, similarity: 100 });
    } else {
      changes.push({ status: 'added', path: file });
    }
  }
  for (const file of deleted) if (!renamedFrom.has(file)) changes.push({ status: 'deleted', path: file });
  return changes;
}

// ---- manifest files ------------------------------------------------------------------------

interface ManifestJson {
  format: 1;
  root: string;
  takenAt: number;
  /** [path, size, mtimeMs, ctimeMs, ino, kind, hash] */
  files: [string, number, number, number, number, ManifestEntry['kind'], string][];
}

export function encodeManifest(m: Manifest): Buffer {
  const json: ManifestJson = {
    format: 1,
    root: m.root,
    takenAt: m.takenAt,
    files: [...m.files].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([p, e]) => [p, e.size, e.mtimeMs, e.ctimeMs, e.ino, e.kind, e.hash]),
  };
  return Buffer.from(JSON.stringify(json), 'utf8');
}

export function decodeManifest(bytes: Buffer): Manifest {
  const json = JSON.parse(bytes.toString('utf8')) as ManifestJson;
  if (json.format !== 1 || !Array.isArray(json.files)) throw new Error('not a manifest of format 1');
  const files = new Map<string, ManifestEntry>();
  for (const [p, size, mtimeMs, ctimeMs, ino, kind, hash] of json.files) files.set(p, { size, mtimeMs, ctimeMs, ino, kind, hash });
  return { root: json.root, takenAt: json.takenAt, files };
}
