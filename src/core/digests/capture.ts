// Which agent sessions may be digested into the ledger: only sessions whose working folder is inside
// the workspace, and only while capture is on for the workspace, the session's provider and its
// folder. Settings (the person's choice) and a committed `.agent-progress/capture.json` (the team's)
// both apply; the file is untrusted input, so it can only turn capture off or narrow it, never
// widen it or point anything elsewhere. A file that does not parse turns capture off, saying why.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { readRegularTextSync } from '../regularFile';
import { PROVIDERS, type Provider } from '../traces/types';
import { globMatcher } from '../workflow/globMatcher';

export const CAPTURE_FILE = path.join('.agent-progress', 'capture.json');
/** A capture file larger than this is refused (turning capture off): it is a few lines by design. */
const CAPTURE_FILE_MAX = 64 * 1024;

export interface CaptureSettings {
  /** The workspace switch (the extension's setting, the CLI's default on). */
  enabled: boolean;
  /** Providers whose sessions are never digested. */
  excludeProviders?: readonly string[];
  /** Folders (relative to the workspace, globs allowed) whose sessions are never digested. */
  excludeFolders?: readonly string[];
}

export interface CapturePolicy {
  enabled: boolean;
  /** Why capture is off, when it is. */
  reason: string | null;
  excludeProviders: ReadonlySet<Provider>;
  excludeFolders: readonly string[];
  /** Problems with the capture file, for a warning. */
  warnings: string[];
}

/** The workspace's committed capture file, narrowed into `base`. */
export function resolveCapturePolicy(workspace: string, settings: CaptureSettings): CapturePolicy {
  const policy: CapturePolicy = {
    enabled: settings.enabled,
    reason: settings.enabled ? null : 'session digests are off in the settings',
    excludeProviders: new Set(PROVIDERS.filter((p) => settings.excludeProviders?.includes(p))),
    excludeFolders: [...(settings.excludeFolders ?? [])].map(normaliseFolder).filter((f) => f !== ''),
    warnings: [],
  };
  const file = path.join(workspace, CAPTURE_FILE);
  let text: string;
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile()) return off(policy, `${CAPTURE_FILE} is not a regular file; capture is off until it is fixed or removed`);
    if (st.size > CAPTURE_FILE_MAX) return off(policy, `${CAPTURE_FILE} is larger than 64 KB; capture is off until it is fixed`);
    // Checked again on the descriptor, capped, non-blocking: the file may change after the lstat.
    text = readRegularTextSync(file, { maxBytes: CAPTURE_FILE_MAX, what: 'The capture file' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return policy;
    return off(policy, `${CAPTURE_FILE} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}); capture is off until it is fixed`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return off(policy, `${CAPTURE_FILE} is not valid JSON; capture is off until it is fixed (expected {"enabled": false} or {"excludeProviders": [...], "excludeFolders": [...]})`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return off(policy, `${CAPTURE_FILE} must be a JSON object; capture is off until it is fixed`);
  const o = doc as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!['enabled', 'excludeProviders', 'excludeFolders', '$comment'].includes(key))
      policy.warnings.push(`${CAPTURE_FILE}: unknown key "${key.slice(0, 40)}" ignored (known: enabled, excludeProviders, excludeFolders)`);
  }
  if (o.enabled !== undefined) {
    if (typeof o.enabled !== 'boolean') return off(policy, `${CAPTURE_FILE}: "enabled" must be true or false; capture is off until it is fixed`);
    // true cannot turn on what the settings turned off: the file only narrows.
    if (o.enabled === false && policy.enabled) {
      policy.enabled = false;
      policy.reason = `capture is off for this workspace by ${CAPTURE_FILE}`;
    }
  }
  const providers = stringList(o.excludeProviders);
  if (providers === undefined) return off(policy, `${CAPTURE_FILE}: "excludeProviders" must be a list of ${PROVIDERS.join(', ')}; capture is off until it is fixed`);
  const excluded = new Set(policy.excludeProviders);
  for (const p of providers) {
    if ((PROVIDERS as readonly string[]).includes(p)) excluded.add(p as Provider);
    else policy.warnings.push(`${CAPTURE_FILE}: unknown provider "${p.slice(0, 40)}" in excludeProviders (known: ${PROVIDERS.join(', ')})`);
  }
  policy.excludeProviders = excluded;
  const folders = stringList(o.excludeFolders);
  if (folders === undefined) return off(policy, `${CAPTURE_FILE}: "excludeFolders" must be a list of folders relative to the workspace; capture is off until it is fixed`);
  policy.excludeFolders = [...policy.excludeFolders, ...folders.map(normaliseFolder).filter((f) => f !== '')];
  return policy;
}

function off(policy: CapturePolicy, why: string): CapturePolicy {
  policy.warnings.push(why);
  return { ...policy, enabled: false, reason: why };
}

function stringList(value: unknown): string[] | undefined {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > 200 || !value.every((v) => typeof v === 'string' && v.length <= 500)) return undefined;
  return value as string[];
}

function normaliseFolder(folder: string): string {
  return folder.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '').trim();
}

/** The session's folder relative to the workspace, or undefined when it is outside it. */
export function relativeInside(workspace: string, folder: string | null): string | undefined {
  if (!folder) return undefined;
  const rel = path.relative(path.resolve(workspace), path.resolve(folder));
  if (rel === '') return '';
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

/** Why a session in `folder` by `provider` may not be digested, or null when it may. */
export function captureRefusal(policy: CapturePolicy, workspace: string, provider: Provider, folder: string | null): string | null {
  if (!policy.enabled) return policy.reason ?? 'capture is off';
  const rel = relativeInside(workspace, folder);
  if (rel === undefined) return 'the session ran outside this workspace';
  if (policy.excludeProviders.has(provider)) return `capture is off for ${provider}`;
  for (const pattern of policy.excludeFolders) {
    if (rel === pattern || rel.startsWith(`${pattern}/`) || safeGlob(pattern, rel)) return `capture is off for the folder ${pattern}`;
  }
  return null;
}

function safeGlob(pattern: string, rel: string): boolean {
  if (!/[*?[]/.test(pattern)) return false;
  try {
    return globMatcher(pattern, { orInside: true })(rel);
  } catch {
    return false;
  }
}
