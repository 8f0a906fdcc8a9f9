// Real git repositories in temporary folders (the git binary, never a stub), for the workflow
// snapshot tests: init with a local identity, write files, run git, read refs.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The environment git runs with here: no developer config and no repository variables leak in. */
export function gitTestEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('GIT_')) delete env[k];
  env.GIT_CONFIG_NOSYSTEM = '1';
  env.GIT_AUTHOR_NAME = 'Test';
  env.GIT_AUTHOR_EMAIL = 'test@example.com';
  env.GIT_COMMITTER_NAME = 'Test';
  env.GIT_COMMITTER_EMAIL = 'test@example.com';
  return env;
}

export interface TestRepo {
  dir: string;
  git(...args: string[]): string;
  write(file: string, content: string | Buffer): void;
  read(file: string): string;
  remove(file: string): void;
  move(from: string, to: string): void;
  commitAll(message: string): string;
}

export function repoAt(dir: string): TestRepo {
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: dir, env: gitTestEnv(), stdio: ['ignore', 'pipe', 'pipe'] }).toString('utf8');
  return {
    dir,
    git,
    write(file, content) {
      const full = path.join(dir, file);
      fs.mkdirSync(path.dirname(full), { recursive: true });
      fs.writeFileSync(full, content);
    },
    read(file) {
      return fs.readFileSync(path.join(dir, file), 'utf8');
    },
    remove(file) {
      fs.rmSync(path.join(dir, file), { recursive: true, force: true });
    },
    move(from, to) {
      fs.mkdirSync(path.dirname(path.join(dir, to)), { recursive: true });
      fs.renameSync(path.join(dir, from), path.join(dir, to));
    },
    commitAll(message) {
      git('add', '-A');
      git('commit', '-q', '--no-verify', '-m', message);
      return git('rev-parse', 'HEAD').trim();
    },
  };
}

/** A new repository (branch main) in `dir`, optionally with a first commit of `files`. */
export function initRepo(dir: string, files?: Record<string, string | Buffer>): TestRepo {
  fs.mkdirSync(dir, { recursive: true });
  const repo = repoAt(dir);
  repo.git('init', '-q', '-b', 'main');
  repo.git('config', 'user.name', 'Test');
  repo.git('config', 'user.email', 'test@example.com');
  repo.git('config', 'commit.gpgsign', 'false');
  if (files) {
    for (const [file, content] of Object.entries(files)) repo.write(file, content);
    repo.commitAll('initial');
  }
  return repo;
}
