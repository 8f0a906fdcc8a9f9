// The git binary as the workflow snapshots use it: find the repository around a folder, take a
// snapshot of its whole working tree (HEAD plus a tree object written through a temporary index,
// kept from garbage collection by a ref), diff two snapshots, read a file as it was. Never touches
// the user's index, branches, stash or working tree.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const SNAPSHOT_REF_PREFIX = 'refs/agent-progress/snapshots/';
/** The tree of an empty directory, the same in every repository (SHA-1). */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export class GitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'GitError';
  }
}

/** git is not installed (or not on PATH). */
export class GitMissing extends Error {
  constructor() {
    super('git was not found on PATH');
    this.name = 'GitMissing';
  }
}

// Variables that would point git at another repository, index or object store than the one we
// name: set by hooks and by tools that run us from inside git.
const REPO_ENV = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_COMMON_DIR', 'GIT_NAMESPACE', 'GIT_PREFIX'];

function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of REPO_ENV) delete env[name];
  // Never wait for a credential or an editor; read-only commands take no optional lock.
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_OPTIONAL_LOCKS = '0';
  env.LC_ALL = 'C';
  return { ...env, ...extra };
}

export interface GitRun {
  stdout: Buffer;
  stderr: string;
  code: number;
}

/** Runs git; resolves with its output and exit code (never rejects on a non-zero exit). */
export function runGit(args: readonly string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn('git', args as string[], { cwd: options.cwd, env: gitEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    } catch (err) {
      reject((err as NodeJS.ErrnoException).code === 'ENOENT' ? new GitMissing() : err);
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let errBytes = 0;
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => {
      // Enough of stderr to explain a failure; git add can warn about thousands of files.
      if (errBytes < 64 << 10) err.push(c);
      errBytes += c.length;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(e.code === 'ENOENT' ? new GitMissing() : e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), code: code ?? (signal ? 128 : 1) });
    });
  });
}

async function git(args: readonly string[], cwd: string, env?: Record<string, string>): Promise<string> {
  const run = await runGit(args, { cwd, ...(env ? { env } : {}) });
  if (run.code !== 0) throw new GitError(`git ${args[0]} failed: ${firstLine(run.stderr) || `exit ${run.code}`}`, run.code, run.stderr);
  return run.stdout.toString('utf8');
}

export function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0 && !l.startsWith('hint:') && !l.startsWith('warning:')) ?? ''
  );
}

export interface Repository {
  /** Absolute path of the working tree's root (of this worktree, for a linked worktree). */
  root: string;
  /** Absolute path of this worktree's git directory. */
  gitDir: string;
  /** The index of this worktree. */
  indexFile: string;
}

/**
 * The repository whose working tree contains `dir`; undefined when `dir` is in none (or only in
 * a bare repository or a .git folder). Throws GitMissing when git is not installed.
 */
export async function findRepository(dir: string): Promise<Repository | undefined> {
  const run = await runGit(['rev-parse', '--is-inside-work-tree', '--show-toplevel', '--absolute-git-dir', '--git-path', 'index'], { cwd: dir });
  if (run.code !== 0) {
    if (/not a git repository/i.test(run.stderr)) return undefined;
    throw new GitError(`git rev-parse failed in ${dir}: ${firstLine(run.stderr) || `exit ${run.code}`}`, run.code, run.stderr);
  }
  const [inside, root, gitDir, index] = run.stdout.toString('utf8').split('\n');
  if (inside !== 'true' || !root || !gitDir || !index) return undefined;
  return { root: path.resolve(root), gitDir: path.resolve(gitDir), indexFile: path.resolve(dir, index) };
}

export interface GitSnapshot {
  head: string | null;
  branch: string | null;
  tree: string;
  ref: string;
  /** Files git could not read (left out of the snapshot). */
  unreadable: string[];
}

/** Copies the index with its modification time, so git's racy-entry check still holds. */
function copyIndex(from: string, to: string): boolean {
  try {
    const st = fs.statSync(from);
    fs.copyFileSync(from, to);
    fs.utimesSync(to, st.atime, st.mtime);
    return true;
  } catch {
    return false;
  }
}

function removeQuietly(file: string): void {
  for (const f of [file, `${file}.lock`]) {
    try {
      fs.rmSync(f, { force: true });
    } catch {
      // a temporary file; the OS cleans its temp folder
    }
  }
}

const ADD_CONFIG = ['-c', 'core.safecrlf=false', '-c', 'advice.addEmbeddedRepo=false', '-c', 'advice.addIgnoredFile=false'];

/**
 * Records HEAD and writes a tree of the whole working tree as it is now: tracked files with their
 * uncommitted edits, untracked files, deletions; what .gitignore excludes is left out. Works
 * through a copy of the index, so the user's staging area is never touched. The tree is kept by
 * the ref refs/agent-progress/snapshots/<id>.
 */
export async function snapshotWorkingTree(repo: Repository, id: string): Promise<GitSnapshot> {
  const headRun = await runGit(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { cwd: repo.root });
  const head = headRun.code === 0 ? headRun.stdout.toString('utf8').trim() : null;
  const branchRun = await runGit(['symbolic-ref', '-q', '--short', 'HEAD'], { cwd: repo.root });
  const branch = branchRun.code === 0 ? branchRun.stdout.toString('utf8').trim() || null : null;

  const tmpIndex = path.join(os.tmpdir(), `agent-progress-index-${process.pid}-${randomBytes(6).toString('hex')}`);
  const unreadable: string[] = [];
  try {
    // Starting from the real index, git add re-reads only the files whose stat data changed.
    const seeded = fs.existsSync(repo.indexFile) && copyIndex(repo.indexFile, tmpIndex);
    const env = { GIT_INDEX_FILE: tmpIndex };
    let add = await runGit([...ADD_CONFIG, 'add', '-A', '--ignore-errors'], { cwd: repo.root, env });
    if (add.code !== 0 && seeded && !/^error: /m.test(add.stderr)) {
      // The copied index was not usable on its own (a split index, say): build one from nothing.
      removeQuietly(tmpIndex);
      add = await runGit([...ADD_CONFIG, 'add', '-A', '--ignore-errors'], { cwd: repo.root, env });
    }
    if (add.code !== 0) {
      const errors = add.stderr.split('\n').filter((l) => l.startsWith('error: '));
      if (errors.length === 0) throw new GitError(`git add failed: ${firstLine(add.stderr) || `exit ${add.code}`}`, add.code, add.stderr);
      for (const line of errors) {
        const m = /^error: (?:open|read|lstat|readlink)\("(.*)"\)/.exec(line) ?? /^error: unable to index file '?(.*?)'?$/.exec(line);
        if (m?.[1] && !unreadable.includes(m[1])) unreadable.push(m[1]);
      }
    }
    const tree = (await git(['write-tree'], repo.root, env)).trim();
    const ref = `${SNAPSHOT_REF_PREFIX}${id}`;
    await git(['update-ref', '-m', 'agent-progress snapshot', ref, tree], repo.root);
    return { head, branch, tree, ref, unreadable };
  } finally {
    removeQuietly(tmpIndex);
  }
}

export interface TreeChange {
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  path: string;
  /** The earlier path of a renamed file. */
  from?: string;
  similarity?: number;
}

/** What changed from tree `a` to tree `b`, with renames; paths relative to the root. Binary-safe. */
export async function diffTrees(repo: Repository, a: string, b: string): Promise<TreeChange[]> {
  if (a === b) return [];
  const out = await runGit(['-c', 'diff.renameLimit=5000', 'diff-tree', '-r', '-M', '--name-status', '-z', '--no-ext-diff', a, b], { cwd: repo.root });
  if (out.code !== 0) throw new GitError(`git diff-tree failed: ${firstLine(out.stderr) || `exit ${out.code}`}`, out.code, out.stderr);
  return parseNameStatus(out.stdout);
}

/** Parses `git diff-tree --name-status -z`: STATUS NUL PATH NUL, or R<score> NUL FROM NUL TO NUL. */
export function parseNameStatus(raw: Buffer): TreeChange[] {
  const fields = raw.toString('utf8').split('\0');
  const changes: TreeChange[] = [];
  for (let i = 0; i < fields.length; ) {
    const status = fields[i++];
    if (!status) continue;
    const code = status[0];
    if (code === 'R' || code === 'C') {
      const from = fields[i++]!;
      const to = fields[i++]!;
      const similarity = Number(status.slice(1)) || 0;
      // A copy leaves its source in place: for the task it is a new file.
      changes.push(code === 'R' ? { status: 'renamed', path: to, from, similarity } : { status: 'added', path: to });
      continue;
    }
    const file = fields[i++]!;
    if (code === 'A') changes.push({ status: 'added', path: file });
    else if (code === 'D') changes.push({ status: 'deleted', path: file });
    else changes.push({ status: 'modified', path: file }); // M, T (type change), U, X
  }
  return changes;
}

/** Commits reachable from `to` and not from `from` (newest first, at most `max`). */
export async function commitsBetween(repo: Repository, from: string | null, to: string | null, max = 50): Promise<{ sha: string; subject: string }[]> {
  if (!to || from === to) return [];
  const range = from ? [`${from}..${to}`] : [to];
  const run = await runGit(['log', `--max-count=${max}`, '--format=%H%x00%s%x00', ...range, '--'], { cwd: repo.root });
  if (run.code !== 0) return [];
  const parts = run.stdout.toString('utf8').split('\0');
  const out: { sha: string; subject: string }[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const sha = parts[i]!.trim();
    if (sha) out.push({ sha, subject: parts[i + 1]! });
  }
  return out;
}

/** True when the object exists in the repository. */
export async function objectExists(repo: Repository, oid: string): Promise<boolean> {
  return (await runGit(['cat-file', '-e', oid], { cwd: repo.root })).code === 0;
}

/** A file's bytes in a tree, or undefined when the tree has no such file. */
export async function readTreeFile(repoRoot: string, tree: string, file: string): Promise<Buffer | undefined> {
  const run = await runGit(['cat-file', 'blob', `${tree}:${file}`], { cwd: repoRoot });
  if (run.code !== 0) return undefined;
  return run.stdout;
}

/** Deletes a snapshot's ref (its objects go at the repository's next garbage collection). */
export async function deleteSnapshotRef(repoRoot: string, ref: string): Promise<void> {
  await runGit(['update-ref', '-d', ref], { cwd: repoRoot });
}
