// The queue's rules as pure functions: templates, duplicate keys, leases, what a failure does.
// Storage calls these inside its transactions, so every backend applies the same rules.

import { invalidArgument } from '../errors';
import type { Task, TaskStatus } from './types';

const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** The distinct {{variables}} of a template, in order of first use. */
export function templateVariables(template: string): string[] {
  const out: string[] = [];
  for (const m of template.matchAll(VARIABLE)) if (!out.includes(m[1]!)) out.push(m[1]!);
  return out;
}

/** The template with every {{variable}} replaced by its value (values inserted as they are). */
export function interpolate(template: string, values: Record<string, string>): string {
  return template.replace(VARIABLE, (_m, name: string) => values[name] ?? '');
}

/** Checks variables against a task type's list; returns an error message or undefined. */
export function variablesProblem(typeName: string, declared: readonly string[], given: Record<string, string> | undefined): string | undefined {
  const names = Object.keys(given ?? {});
  const missing = declared.filter((v) => !names.includes(v));
  const unknown = names.filter((v) => !declared.includes(v));
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`missing ${missing.map((v) => `"${v}"`).join(', ')}`);
  if (unknown.length > 0) parts.push(`unknown ${unknown.map((v) => `"${v}"`).join(', ')}`);
  if (parts.length === 0) return undefined;
  return `Variables for task type "${typeName}": ${parts.join('; ')}. It takes exactly: ${declared.length > 0 ? declared.join(', ') : 'none'}`;
}

/** Canonical JSON of variables (keys sorted), the identity used for duplicate handling. */
export function variablesKey(values: Record<string, string> | undefined): string | null {
  if (!values || Object.keys(values).length === 0) return null;
  return JSON.stringify(
    Object.fromEntries(
      Object.keys(values)
        .sort()
        .map((k) => [k, values[k]]),
    ),
  );
}

export function addMinutes(iso: string, minutes: number): string {
  return new Date(Date.parse(iso) + Math.round(minutes * 60_000)).toISOString();
}

/** The longest a failed task is kept from the agent that failed it, in minutes. */
export const RETRY_BACKOFF_MAX_MINUTES = 1;

/**
 * Until when a task requeued after failing in an agent's hands (reported, or its lease ran out)
 * is kept from that agent, while another agent of the project is there to take it: one lease of
 * the task, at most RETRY_BACKOFF_MAX_MINUTES. Other agents take it at once; the back-off only
 * ever delays the one agent, and only that long, so nothing waits for good.
 */
export function retryBackoffUntil(at: string, leaseMinutes: number): string {
  return addMinutes(at, Math.min(leaseMinutes, RETRY_BACKOFF_MAX_MINUTES));
}

/** Agents seen since this time (or connected now) count as there to take a failed task. */
export function presentSince(at: string): string {
  return addMinutes(at, -RETRY_BACKOFF_MAX_MINUTES);
}

/** What a failed attempt (reported, or a lease that ran out) does to its task. */
export function afterFailure(task: Pick<Task, 'retryCount' | 'maxRetries'>, canRetry: boolean): { status: Extract<TaskStatus, 'queued' | 'failed'>; retryCount: number } {
  if (canRetry && task.retryCount < task.maxRetries) return { status: 'queued', retryCount: task.retryCount + 1 };
  return { status: 'failed', retryCount: task.retryCount };
}

export function validateTemplate(template: string, variables: readonly string[] | undefined): string[] {
  const used = templateVariables(template);
  if (variables === undefined) return used;
  const bad = variables.filter((v) => !VARIABLE_NAME.test(v));
  if (bad.length > 0) throw invalidArgument(`variables must be names of letters, digits, _ . or - (got ${bad.map((v) => JSON.stringify(v)).join(', ')})`);
  const undeclared = used.filter((v) => !variables.includes(v));
  if (undeclared.length > 0) {
    throw invalidArgument(
      `The template uses ${undeclared.map((v) => `{{${v}}}`).join(', ')}, which variables does not list; add them to variables or leave variables out to take them from the template`,
    );
  }
  return [...new Set(variables)];
}
