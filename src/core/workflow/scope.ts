// The scope check of complete_task: each changed file against the areas declared at start_task.
// An area is a name (a folder or file name anywhere: "auth" matches src/auth/x.ts and auth.ts),
// a path (that folder or file: "src/api"), or a glob ("src/**/*.ts", "*.md"). Paths are matched
// from the repository root and, when the server works in a subfolder, from that subfolder too.
// Case is ignored: the check warns, it never refuses.

import { globMatcher, hasGlobMagic } from './globMatcher';
import type { FilesChanged, Verification } from './types';

type Matcher = (file: string) => boolean;

function normaliseArea(area: string): string {
  return area
    .trim()
    .replace(/\\/g, '/')
    .replace(/^\.\/+/, '')
    .replace(/\/+$/, '');
}

function segments(file: string): string[] {
  return file.split('/');
}

function areaMatcher(raw: string): Matcher {
  const area = normaliseArea(raw);
  if (area === '' || area === '.' || area === '**' || area === '*') return () => true;
  const anchored = area.startsWith('/');
  const body = area.replace(/^\/+/, '');
  if (hasGlobMagic(body)) {
    if (body.includes('/') || anchored) {
      // A path glob: the file itself, or a folder it lies in ("src/*" covers src/a/b.ts).
      return globMatcher(body, { caseInsensitive: true, orInside: true });
    }
    const matches = globMatcher(body, { caseInsensitive: true });
    return (file) => segments(file).some(matches);
  }
  const lower = body.toLowerCase();
  if (body.includes('/') || anchored) {
    return (file) => {
      const f = file.toLowerCase();
      return f === lower || f.startsWith(`${lower}/`);
    };
  }
  return (file) => {
    const parts = segments(file.toLowerCase());
    if (parts.includes(lower)) return true;
    const name = parts[parts.length - 1]!;
    const stem = name.startsWith('.') ? name : name.split('.')[0]!;
    return stem === lower;
  };
}

export interface ScopeCheck {
  inScope(file: string): boolean;
}

/** A matcher for the declared areas; `workspacePrefix` is the server's subfolder in the repository ('' at the root). */
export function scopeFor(areas: readonly string[], workspacePrefix = ''): ScopeCheck {
  const matchers = areas.map(areaMatcher);
  const prefix = workspacePrefix.replace(/\\/g, '/').replace(/^\/+|\/+$/g, '');
  return {
    inScope(file: string): boolean {
      if (matchers.some((m) => m(file))) return true;
      if (prefix && (file === prefix || file.startsWith(`${prefix}/`))) {
        const local = file.slice(prefix.length + 1);
        return local !== '' && matchers.some((m) => m(local));
      }
      return false;
    },
  };
}

/** Every path a change touches, for the scope check: both ends of a rename. */
export function touchedPaths(files: FilesChanged): string[] {
  return [...files.added, ...files.modified, ...files.deleted, ...files.renamed.flatMap((r) => [r.from, r.to])];
}

/**
 * The specification's verification block: scope_match, unexpected_files, and the specification's warning line; plus
 * scope_checked, since a scope that was not checked (no areas, or the files changed are unknown)
 * is neither a match nor a mismatch.
 */
export function verifyScope(files: FilesChanged, areas: readonly string[], workspacePrefix = '', filesKnown = true): Verification {
  const notChecked = (why: string): Verification => ({ scope_match: null, scope_checked: false, unexpected_files: [], warnings: [why] });
  if (areas.length === 0) return notChecked('No areas were declared at start_task, so the scope was not checked.');
  if (!filesKnown) return notChecked('The files changed are not known, so the scope was not checked.');
  const touched = touchedPaths(files);
  const scope = scopeFor(areas, workspacePrefix);
  const unexpected = [...new Set(touched.filter((f) => !scope.inScope(f)))].sort();
  return {
    scope_match: unexpected.length === 0,
    scope_checked: true,
    unexpected_files: unexpected,
    warnings: unexpected.length > 0 ? [`⚠️ ${unexpected.length} file(s) modified outside declared scope (${areas.join(', ')})`] : [],
  };
}
