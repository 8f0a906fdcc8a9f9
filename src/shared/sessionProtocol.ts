// Messages between the agent-session webview and the extension host. Types both ways; the host
// parses what the webview sends with the zod schema (the webview imports the types only).
// Everything in a SessionPage was redacted by core before it got here.

import * as z from 'zod';
import type { LedgerActivity, SessionStep, SessionToolCall, SessionTurn } from '../core/traces/types';

export type { SessionStep, SessionToolCall, SessionTurn };

export interface SessionSummary {
  id: string;
  provider: string;
  providerLabel: string;
  kind: string;
  title: string;
  projectPath: string | null;
  start: string | null;
  end: string | null;
  durationSeconds: number | null;
  turns: number;
  toolCalls: number;
  failedToolCalls: number;
  tokens: number;
  score: number;
  models: string[];
  gitBranch: string | null;
}

export interface SessionInsight {
  severity: 'Critical' | 'Warning' | 'Info';
  lens: string;
  message: string;
  turnIndex: number | null;
  eventIndex: number | null;
  impact: number;
}

/** A ledger record linked to a session (core's LedgerActivity). */
export type LedgerLink = LedgerActivity;

export interface SessionPage {
  session: SessionSummary;
  parentId: string | null;
  children: { id: string; kind: string; title: string; toolCalls: number; failedToolCalls: number }[];
  insights: SessionInsight[];
  ledger: LedgerLink[];
  turns: SessionTurn[];
  /** Turns not sent (very long sessions): the MCP tools page through them. */
  moreTurns: number;
  malformedLines: number;
}

export interface EventDetail {
  type: string;
  timestamp: string | null;
  /** Redacted; long texts cut. */
  payload: unknown;
}

export type HostToSession =
  | { type: 'session'; page: SessionPage; focusEvent?: number }
  | { type: 'event'; eventIndex: number; detail: EventDetail | null; error?: string }
  | { type: 'missing'; message: string };

export const sessionToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('showEvent'), eventIndex: z.number().int().min(0) }),
  z.object({ type: z.literal('openSession'), id: z.string().min(1).max(200) }),
  z.object({ type: z.literal('openEntry'), id: z.string().min(1).max(200), projectId: z.string().min(1).max(200) }),
  z.object({ type: z.literal('copyId') }),
]);

export type SessionToHost = z.infer<typeof sessionToHost>;
