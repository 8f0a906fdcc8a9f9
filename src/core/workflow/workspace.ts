// Which folder the workflow snapshots look at, and the default project of a workflow: the server's
// working directory (VS Code starts it in the workspace folder) unless AGENT_PROGRESS_WORKSPACE
// names another; the project is AGENT_PROGRESS_PROJECT, else the repository's name.

import * as os from 'node:os';
import * as path from 'node:path';
import { defaultProjectId } from '../projectId';

export const WORKSPACE_ENV = 'AGENT_PROGRESS_WORKSPACE';

export function resolveWorkspace(env: Record<string, string | undefined>, cwd: string): string {
  const raw = env[WORKSPACE_ENV]?.trim();
  if (!raw) return path.resolve(cwd);
  const expanded = raw === '~' || raw.startsWith('~/') || raw.startsWith('~\\') ? path.join(os.homedir(), raw.slice(1)) : raw;
  return path.resolve(cwd, expanded);
}

export function workflowProjectId(env: Record<string, string | undefined>, workspace: string): string {
  return env.AGENT_PROGRESS_PROJECT?.trim() || defaultProjectId(workspace);
}
