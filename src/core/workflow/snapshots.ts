// Snapshots of the files a tracked task works on, and what changed between two of them.
// In git: HEAD plus a tree of the whole working tree (see git.ts), so committed, uncommitted and
// untracked changes all count and nothing present before the task does. Outside git: a checksum
// manifest (see checksumSnapshot.ts) kept in a file beside the ledger, never in the journal.
// Never throws for a file-system problem: the task is tracked anyway, with a warning.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ensurePrivateDir, writeFileAtomicSync } from '../storage/files';
import { checksumSnapshot, decodeManifest, diffManifests, encodeManifest, TooManyFiles, type Manifest } from './checksumSnapshot';
import {
  commitsBetween,
  deleteSnapshotRef,
  diffTrees,
  findRepository,
  firstLine,
  GitError,
  GitMissing,
  objectExists,
  readTreeFile,
  runGit,
  snapshotWorkingTree,
  type Repository,
} from './git';
import type { CommitInfo, FilesChanged, Snapshot } from './types';
import { readRegularFileSync } from '../regularFile';

/** A checksum manifest (gzip) larger than this is not ours: 100,000 files make a few MB. */
const MAX_MANIFEST_BYTES = 256 << 20;

/** A snapshot as taken, before it belongs to a task. */
export type TakenSnapshot = Omit<Snapshot, 'taskId' | 'role'>;

export interface Taken {
  snapshot: TakenSnapshot;
  warnings: string[];
  /** checksum: the manifest in memory (for the diff at the end of a task). */
  manifest?: Manifest;
}

export interface Changes {
  files: FilesChanged;
  commits: CommitInfo[];
  warnings: string[];
  /** false when the two snapshots could not be compared (see warnings). */
  known: boolean;
}

export type BeforeContent = { kind: 'content'; bytes: Buffer } | { kind: 'absent' } | { kind: 'unavailable'; reason: string };

export interface SnapshotterOptions {
  /** The folder the server works in: the repository is found from it. */
  workspace: string;
  /** Folder for checksum manifests, beside the ledger (created 0700 on first use). */
  manifestDir: string;
  /** Folders never walked by checksum snapshots (the ledger's own). */
  excludePaths?: readonly string[];
  clock?: () => Date;
  maxFiles?: number;
}

function emptyFiles(): FilesChanged {
  return { added: [], modified: [], deleted: [], renamed: [] };
}

function sortFiles(files: FilesChanged): FilesChanged {
  const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    added: [...files.added].sort(byPath),
    modified: [...files.modified].sort(byPath),
    deleted: [...files.deleted].sort(byPath),
    renamed: [...files.renamed].sort((a, b) => byPath(a.to, b.to)),
  };
}

function toFiles(changes: readonly { status: string; path: string; from?: string; similarity?: number }[]): FilesChanged {
  const files = emptyFiles();
  for (const c of changes) {
    if (c.status === 'added') files.added.push(c.path);
    else if (c.status === 'deleted') files.deleted.push(c.path);
    else if (c.status === 'renamed') files.renamed.push({ from: c.from!, to: c.path, similarity: c.similarity ?? 100 });
    else files.modified.push(c.path);
  }
  return sortFiles(files);
}

const cacheName = (root: string): string => `cache-${createHash('sha1').update(path.resolve(root)).digest('hex').slice(0, 16)}.json.gz`;

export class Snapshotter {
  readonly workspace: string;
  private readonly clock: () => Date;

  constructor(private readonly options: SnapshotterOptions) {
    this.workspace = path.resolve(options.workspace);
    this.clock = options.clock ?? (() => new Date());
  }

  /** Takes a snapshot of the workspace's repository (or folder) now. */
  async take(id: string): Promise<Taken> {
    const started = Date.now();
    const createdAt = this.clock().toISOString();
    const base: TakenSnapshot = {
      id,
      type: 'none',
      root: null,
      workspace: this.workspace,
      head: null,
      branch: null,
      tree: null,
      ref: null,
      manifest: null,
      fileCount: null,
      digest: null,
      createdAt,
      tookMs: 0,
      note: null,
    };
    const warnings: string[] = [];
    const none = (note: string): Taken => {
      warnings.push(`No snapshot was taken: ${note}`);
      return { snapshot: { ...base, note, tookMs: Date.now() - started }, warnings };
    };
    let isDir = false;
    try {
      isDir = fs.statSync(this.workspace).isDirectory();
    } catch {
      isDir = false;
    }
    if (!isDir) return none(`the workspace folder ${this.workspace} does not exist. Start the server in the repository, or set AGENT_PROGRESS_WORKSPACE to it.`);
    // git names roots by their real path; so does the snapshot, so that the two compare.
    try {
      base.workspace = fs.realpathSync(this.workspace);
    } catch {
      // keep the resolved path
    }

    let repo: Repository | undefined;
    try {
      repo = await findRepository(this.workspace);
    } catch (err) {
      if (err instanceof GitMissing) warnings.push('git is not installed, so a checksum snapshot was taken instead of a git snapshot.');
      else
        warnings.push(`git could not read ${this.workspace} (${err instanceof GitError ? firstLine(err.stderr) || err.message : String(err)}), so a checksum snapshot was taken.`);
    }
    if (repo) {
      try {
        const snap = await snapshotWorkingTree(repo, id);
        if (snap.unreadable.length > 0) {
          warnings.push(
            `${snap.unreadable.length} file(s) could not be read and are not in the snapshot: ${snap.unreadable.slice(0, 5).join(', ')}${snap.unreadable.length > 5 ? ', …' : ''}`,
          );
        }
        return {
          snapshot: { ...base, type: 'git', root: repo.root, head: snap.head, branch: snap.branch, tree: snap.tree, ref: snap.ref, tookMs: Date.now() - started },
          warnings,
        };
      } catch (err) {
        warnings.push(`The git snapshot failed (${err instanceof GitError ? firstLine(err.stderr) || err.message : String(err)}), so a checksum snapshot was taken.`);
      }
    }
    return this.takeChecksum(base, warnings, started);
  }

  private async takeChecksum(base: TakenSnapshot, warnings: string[], started: number): Promise<Taken> {
    const root = base.workspace ?? this.workspace;
    const none = (note: string): Taken => {
      warnings.push(`No snapshot was taken: ${note}`);
      return { snapshot: { ...base, note, tookMs: Date.now() - started }, warnings };
    };
    if (root === path.parse(root).root || root === path.resolve(os.homedir())) {
      return none(`the workspace is ${root}, which is not a project folder. Start the server in the repository, or set AGENT_PROGRESS_WORKSPACE to it.`);
    }
    let result;
    try {
      result = await checksumSnapshot(root, {
        cache: this.readCache(root),
        excludePaths: [...(this.options.excludePaths ?? []), this.options.manifestDir],
        ...(this.options.maxFiles !== undefined ? { maxFiles: this.options.maxFiles } : {}),
      });
    } catch (err) {
      if (err instanceof TooManyFiles) return none(`${err.message}. Add a .gitignore, or set AGENT_PROGRESS_WORKSPACE to the project folder.`);
      return none(`the folder ${root} could not be read (${(err as NodeJS.ErrnoException).code ?? String(err)}).`);
    }
    // Level 1: a third of the time of the default for a file that is read once or twice.
    const bytes = gzipSync(encodeManifest(result.manifest), { level: 1 });
    const name = `${base.id}.json.gz`;
    try {
      ensurePrivateDir(this.options.manifestDir);
      writeFileAtomicSync(path.join(this.options.manifestDir, name), bytes);
      this.writeCache(root, path.join(this.options.manifestDir, name), bytes);
    } catch (err) {
      return none(`its checksums could not be saved in ${this.options.manifestDir} (${(err as NodeJS.ErrnoException).code ?? String(err)}).`);
    }
    return {
      snapshot: {
        ...base,
        type: 'checksum',
        root,
        manifest: name,
        fileCount: result.manifest.files.size,
        digest: createHash('sha256').update(bytes).digest('hex'),
        tookMs: Date.now() - started,
      },
      warnings,
      manifest: result.manifest,
    };
  }

  private readCache(root: string): Manifest | undefined {
    try {
      return decodeManifest(gunzipSync(readRegularFileSync(path.join(this.options.manifestDir, cacheName(root)), { maxBytes: MAX_MANIFEST_BYTES, what: 'The checksum cache' })));
    } catch {
      return undefined;
    }
  }

  /** The latest manifest of a folder, as the next snapshot's cache: a hard link when the file system allows one. */
  private writeCache(root: string, manifest: string, bytes: Buffer): void {
    const cache = path.join(this.options.manifestDir, cacheName(root));
    const tmp = `${cache}.tmp-${process.pid}-${Date.now()}`;
    try {
      fs.linkSync(manifest, tmp);
      fs.renameSync(tmp, cache);
    } catch {
      fs.rmSync(tmp, { force: true });
      writeFileAtomicSync(cache, bytes);
    }
  }

  private readManifest(snapshot: Snapshot | TakenSnapshot): Manifest | string {
    if (!snapshot.manifest) return 'it has no manifest';
    const file = path.join(this.options.manifestDir, path.basename(snapshot.manifest));
    let bytes: Buffer;
    try {
      bytes = readRegularFileSync(file, { maxBytes: MAX_MANIFEST_BYTES, what: 'The checksum file' });
    } catch {
      return `its checksum file ${file} is missing`;
    }
    if (snapshot.digest && createHash('sha256').update(bytes).digest('hex') !== snapshot.digest) return `its checksum file ${file} was replaced`;
    try {
      return decodeManifest(gunzipSync(bytes));
    } catch {
      return `its checksum file ${file} cannot be read`;
    }
  }

  /** What changed between the task's start snapshot and `end` (just taken). */
  async changes(start: Snapshot, end: Taken): Promise<Changes> {
    const unknown = (why: string): Changes => ({
      files: emptyFiles(),
      commits: [],
      warnings: [`Files changed could not be computed: ${why}`],
      known: false,
    });
    const e = end.snapshot;
    if (start.type === 'none') return unknown(`no snapshot was taken at start_task (${start.note ?? 'see its warnings'}).`);
    if (e.type === 'none') return unknown(`no snapshot could be taken now (${e.note ?? 'see the warnings'}).`);
    if (start.type !== e.type || start.root !== e.root) {
      return unknown(`the task started in ${start.root} (${start.type} snapshot) and ends in ${e.root} (${e.type} snapshot).`);
    }
    if (start.type === 'git') {
      const repo = await findRepository(start.root!).catch(() => undefined);
      if (!repo) return unknown(`${start.root} is no longer a git repository.`);
      if (!(await objectExists(repo, start.tree!)))
        return unknown(`the start snapshot's tree ${start.tree} is gone from the repository (was ${start.ref} deleted and garbage-collected?).`);
      const changes = await diffTrees(repo, start.tree!, e.tree!);
      const commits = await commitsBetween(repo, start.head, e.head);
      const warnings: string[] = [];
      if (start.head && e.head && start.head !== e.head && !(await this.isAncestor(repo, start.head, e.head))) {
        warnings.push(
          `HEAD moved from ${start.head.slice(0, 7)} to ${e.head.slice(0, 7)}, which does not descend from it (a rebase, reset or checkout during the task); files changed compare the working tree as it was and as it is.`,
        );
      }
      return { files: toFiles(changes), commits, warnings, known: true };
    }
    const before = this.readManifest(start);
    if (typeof before === 'string') return unknown(`the start snapshot cannot be used: ${before}.`);
    if (!end.manifest) return unknown('the end snapshot has no manifest.');
    return { files: toFiles(diffManifests(before, end.manifest)), commits: [], warnings: [], known: true };
  }

  private async isAncestor(repo: Repository, a: string, b: string): Promise<boolean> {
    return (await runGit(['merge-base', '--is-ancestor', a, b], { cwd: repo.root })).code === 0;
  }

  /** A file as it was in a snapshot (`file` relative to its root). */
  async readBefore(snapshot: Snapshot, file: string): Promise<BeforeContent> {
    if (snapshot.type === 'git' && snapshot.root && snapshot.tree) {
      try {
        const bytes = await readTreeFile(snapshot.root, snapshot.tree, file);
        if (bytes) return { kind: 'content', bytes };
        if (!fs.existsSync(snapshot.root)) return { kind: 'unavailable', reason: `the repository ${snapshot.root} is not on this machine` };
        const repo = await findRepository(snapshot.root).catch(() => undefined);
        if (!repo || !(await objectExists(repo, snapshot.tree)))
          return { kind: 'unavailable', reason: `the snapshot's tree ${snapshot.tree.slice(0, 12)} is no longer in ${snapshot.root}` };
        return { kind: 'absent' };
      } catch (err) {
        return { kind: 'unavailable', reason: err instanceof GitMissing ? 'git is not installed' : String((err as Error).message ?? err) };
      }
    }
    if (snapshot.type === 'checksum') {
      const manifest = this.readManifest(snapshot);
      if (typeof manifest !== 'string' && !manifest.files.has(file)) return { kind: 'absent' };
      return {
        kind: 'unavailable',
        reason: 'the folder is not a git repository, so only a checksum of each file was kept at the start of the task, not its content',
      };
    }
    return { kind: 'unavailable', reason: snapshot.note ?? 'no snapshot was taken' };
  }

  /** Removes what a snapshot left behind (a task that was not recorded after all). */
  async discard(snapshot: TakenSnapshot): Promise<void> {
    if (snapshot.type === 'git' && snapshot.root && snapshot.ref) await deleteSnapshotRef(snapshot.root, snapshot.ref).catch(() => undefined);
    if (snapshot.type === 'checksum' && snapshot.manifest) this.removeManifest(snapshot.manifest);
  }

  /** After complete_task: checksum manifests are no longer needed (the cache keeps the latest state). */
  release(snapshot: Snapshot | TakenSnapshot): void {
    if (snapshot.type === 'checksum' && snapshot.manifest) this.removeManifest(snapshot.manifest);
  }

  private removeManifest(name: string): void {
    try {
      fs.rmSync(path.join(this.options.manifestDir, path.basename(name)), { force: true });
    } catch {
      // left for a person to remove; it is only a cache of checksums
    }
  }
}
