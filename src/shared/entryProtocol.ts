// Messages between the entry webview and the extension host. Types both ways; the host parses what
// the webview sends with the zod schema (the webview imports the types only).

import * as z from 'zod';

export interface EntryView {
  id: string;
  projectId: string;
  title: string;
  content: string;
  summary: string | null;
  summarySource: string | null;
  createdAt: string;
  tags: string[];
  agentId: string | null;
  /** For a session digest: the session it digests (the page links to it). */
  sessionId?: string | null;
}

export type HostToEntry = { type: 'entry'; entry: EntryView; summarising: boolean; error?: string } | { type: 'missing'; id: string; message: string };

export const entryToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('summarise') }),
  z.object({ type: z.literal('copyId') }),
  z.object({ type: z.literal('openSession') }),
]);

export type EntryToHost = z.infer<typeof entryToHost>;
