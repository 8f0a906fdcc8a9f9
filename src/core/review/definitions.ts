// Review definitions in the workspace: .agent-progress/reviews/<name>.json, .yaml or .yml. Each
// file is validated in full; a refusal names the file, the line and the field, and says what is
// accepted. The format is documented in README.md ("Review definitions").

import * as fs from 'node:fs';
import * as path from 'node:path';
import { invalidArgument, notFound } from '../errors';
import { readRegularTextSync } from '../regularFile';
import { codePointLength, unstorableReason } from '../text';
import { parseJsonLocated, parseYamlLocated, SourceError, childPath, type Located } from './sourceParse';
import { REQUIRED_PHASES, type DefinitionAgent, type ReviewContext, type ReviewDefinition } from './types';

export const DEFINITIONS_DIR = path.join('.agent-progress', 'reviews');
const EXTENSIONS = ['.json', '.yaml', '.yml'] as const;
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const MAX_FILE_BYTES = 256 * 1024;

export const DEFINITION_LIMITS = { agents: 50, phases: 30, title: 200, description: 2_000, context: 2_000, notes: 10_000 } as const;

interface Problem {
  path: string;
  message: string;
}

function lineOf(located: Located, p: string): number {
  for (let cur = p; ; ) {
    const line = located.lines.get(cur);
    if (line !== undefined) return line;
    if (cur === '') return 1;
    const cut = Math.max(cur.lastIndexOf('.'), cur.lastIndexOf('['));
    cur = cut <= 0 ? '' : cur.slice(0, cut);
  }
}

function text(value: unknown, p: string, max: number, problems: Problem[], opts: { required?: boolean; numberOk?: boolean } = {}): string | null {
  if (value === undefined || value === null) {
    if (opts.required) problems.push({ path: p, message: `${p} is required` });
    return null;
  }
  if (opts.numberOk && typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') {
    problems.push({ path: p, message: `${p} must be a string${opts.numberOk ? ' or a number' : ''}` });
    return null;
  }
  if (opts.required && value.trim() === '') {
    problems.push({ path: p, message: `${p} cannot be empty` });
    return null;
  }
  if (codePointLength(value) > max) {
    problems.push({ path: p, message: `${p} exceeds maximum length of ${max} characters` });
    return null;
  }
  const bad = unstorableReason(value);
  if (bad) {
    problems.push({ path: p, message: `${p} ${bad}` });
    return null;
  }
  return value.trim() === '' ? null : value;
}

function unknownFields(obj: Record<string, unknown>, p: string, known: readonly string[], problems: Problem[]): void {
  for (const key of Object.keys(obj)) {
    if (!known.includes(key)) problems.push({ path: childPath(p, key), message: `unknown field "${key}"${p ? ` in ${p}` : ''}; accepted: ${known.join(', ')}` });
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A definition from its file's text; throws invalid_argument naming file, line and field. */
export function parseDefinition(source: string, content: string): ReviewDefinition {
  const ext = path.extname(source).toLowerCase();
  const name = path.basename(source, path.extname(source));
  let located: Located;
  try {
    located = ext === '.json' ? parseJsonLocated(content) : parseYamlLocated(content);
  } catch (err) {
    if (err instanceof SourceError) throw invalidArgument(`${source} line ${err.line}: ${err.message}`, { file: source, line: err.line });
    throw err;
  }
  const problems: Problem[] = [];
  if (!NAME_PATTERN.test(name)) problems.push({ path: '', message: `the file name "${name}" must be letters, digits, . _ or - (it names the definition)` });
  const root = located.value;
  if (!isObject(root)) {
    throw invalidArgument(`${source} line ${lineOf(located, '')}: a review definition must be an object with "agents" (and optionally title, description, phases, context)`, {
      file: source,
      line: lineOf(located, ''),
    });
  }
  unknownFields(root, '', ['title', 'description', 'agents', 'phases', 'context'], problems);
  const title = text(root.title, 'title', DEFINITION_LIMITS.title, problems);
  const description = text(root.description, 'description', DEFINITION_LIMITS.description, problems);

  const agents: DefinitionAgent[] = [];
  if (root.agents === undefined) problems.push({ path: 'agents', message: 'agents is required: the list of agents (audits) to run, in order' });
  else if (!Array.isArray(root.agents)) problems.push({ path: 'agents', message: 'agents must be a list of agent names or {name, description} objects' });
  else if (root.agents.length === 0) problems.push({ path: 'agents', message: 'agents cannot be empty' });
  else if (root.agents.length > DEFINITION_LIMITS.agents) problems.push({ path: 'agents', message: `agents exceeds maximum of ${DEFINITION_LIMITS.agents} items` });
  else {
    root.agents.forEach((item, i) => {
      const p = childPath('agents', i);
      let agentName: unknown = item;
      let agentDescription: string | null = null;
      if (isObject(item)) {
        unknownFields(item, p, ['name', 'description'], problems);
        agentName = item.name;
        agentDescription = text(item.description, childPath(p, 'description'), DEFINITION_LIMITS.description, problems);
      }
      const np = isObject(item) ? childPath(p, 'name') : p;
      if (agentName === undefined || agentName === null) problems.push({ path: np, message: `${np} is required` });
      else if (typeof agentName !== 'string' || !NAME_PATTERN.test(agentName)) {
        problems.push({ path: np, message: `${np} must be a name of letters, digits, . _ or - (at most 100), such as "clean-architecture"` });
      } else if (agents.some((a) => a.name === agentName)) problems.push({ path: np, message: `${np}: agent "${agentName}" is listed twice` });
      else agents.push({ name: agentName, description: agentDescription });
    });
  }

  let phases: string[] = [...REQUIRED_PHASES];
  if (root.phases !== undefined) {
    if (!Array.isArray(root.phases)) problems.push({ path: 'phases', message: 'phases must be a list of phase names' });
    else if (root.phases.length > DEFINITION_LIMITS.phases) problems.push({ path: 'phases', message: `phases exceeds maximum of ${DEFINITION_LIMITS.phases} items` });
    else {
      const list: string[] = [];
      root.phases.forEach((ph, i) => {
        const p = childPath('phases', i);
        if (typeof ph !== 'string' || !NAME_PATTERN.test(ph)) problems.push({ path: p, message: `${p} must be a phase name of letters, digits, . _ or -` });
        else if (list.includes(ph)) problems.push({ path: p, message: `${p}: phase "${ph}" is listed twice` });
        else list.push(ph);
      });
      const missing = REQUIRED_PHASES.filter((r) => !list.includes(r));
      if (missing.length > 0) problems.push({ path: 'phases', message: `phases must include ${REQUIRED_PHASES.join(', ')}; missing ${missing.join(', ')}` });
      else if (list[0] !== 'pending') problems.push({ path: 'phases', message: 'phases must start with pending' });
      else phases = list;
    }
  }

  const context: ReviewContext = { branch: null, merge_request: null, notes: null };
  if (root.context !== undefined && root.context !== null) {
    if (!isObject(root.context)) problems.push({ path: 'context', message: 'context must be an object with branch, merge_request and notes' });
    else {
      unknownFields(root.context, 'context', ['branch', 'merge_request', 'notes'], problems);
      context.branch = text(root.context.branch, 'context.branch', DEFINITION_LIMITS.context, problems);
      context.merge_request = text(root.context.merge_request, 'context.merge_request', DEFINITION_LIMITS.context, problems, { numberOk: true });
      context.notes = text(root.context.notes, 'context.notes', DEFINITION_LIMITS.notes, problems);
    }
  }

  if (problems.length > 0) {
    const first = problems[0]!;
    const line = lineOf(located, first.path);
    const more =
      problems.length > 1
        ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''}: ${problems
            .slice(1, 4)
            .map((pr) => `line ${lineOf(located, pr.path)}: ${pr.message}`)
            .join('; ')})`
        : '';
    throw invalidArgument(`${source} line ${line}: ${first.message}${more}`, { file: source, line, field: first.path || null });
  }
  return { name, title, description, agents, phases, context, source: source.split(path.sep).join('/') };
}

export interface DefinitionListing {
  definitions: ReviewDefinition[];
  /** Files that could not be read or validated, with the reason. */
  errors: { file: string; message: string }[];
}

function definitionFiles(workspace: string): string[] {
  const dir = path.join(workspace, DEFINITIONS_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => (EXTENSIONS as readonly string[]).includes(path.extname(n).toLowerCase())).sort();
}

function readDefinitionFile(workspace: string, fileName: string): ReviewDefinition {
  const rel = path.join(DEFINITIONS_DIR, fileName);
  const full = path.join(workspace, rel);
  let content: string;
  try {
    // A definition may be a symlink to a device (/dev/zero) or a FIFO: regular files only, capped.
    content = readRegularTextSync(full, { maxBytes: MAX_FILE_BYTES, what: 'The review definition' });
  } catch (err) {
    if (err instanceof Error && err.name === 'LedgerError') throw err;
    throw invalidArgument(`Cannot read ${rel}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return parseDefinition(rel, content);
}

/** Every definition in the workspace, valid ones and, apart, the reasons others are not. */
export function listDefinitions(workspace: string): DefinitionListing {
  const out: DefinitionListing = { definitions: [], errors: [] };
  const seen = new Set<string>();
  for (const file of definitionFiles(workspace)) {
    const name = path.basename(file, path.extname(file));
    if (seen.has(name)) {
      out.errors.push({ file: `${DEFINITIONS_DIR}/${file}`.split(path.sep).join('/'), message: `another file already defines "${name}"; keep one` });
      continue;
    }
    seen.add(name);
    try {
      out.definitions.push(readDefinitionFile(workspace, file));
    } catch (err) {
      out.errors.push({ file: `${DEFINITIONS_DIR}/${file}`.split(path.sep).join('/'), message: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}

/**
 * The definition to run: the one named, else the only one, else one named "default". Throws
 * not_found listing what exists, or invalid_argument with the file's own problem.
 */
export function loadDefinition(workspace: string, name: string | undefined): ReviewDefinition {
  const files = definitionFiles(workspace);
  const names = files.map((f) => path.basename(f, path.extname(f)));
  const where = `${DEFINITIONS_DIR.split(path.sep).join('/')}/ in ${workspace}`;
  if (files.length === 0) {
    throw notFound(
      `No review definitions in ${where}. Create one (for example ${DEFINITIONS_DIR.split(path.sep).join('/')}/default.yaml with an "agents" list; see the README's "Review definitions").`,
    );
  }
  let chosen: string | undefined;
  if (name !== undefined) {
    chosen = files.find((f) => path.basename(f, path.extname(f)) === name);
    if (!chosen) throw notFound(`No review definition "${name}" in ${where}. Available: ${names.join(', ')}.`);
  } else if (files.length === 1) chosen = files[0];
  else {
    chosen = files.find((f) => path.basename(f, path.extname(f)) === 'default');
    if (!chosen) throw invalidArgument(`Several review definitions exist (${names.join(', ')}); name one with the workflow argument.`);
  }
  return readDefinitionFile(workspace, chosen!);
}
