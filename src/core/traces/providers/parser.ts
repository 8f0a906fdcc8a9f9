// What every provider's reader implements: where its transcripts live (discover) and how one file
// turns into events (a parser fed line by line, or with the whole text). Readers never write.

import type { ParsedEvent, Provider, SessionMeta } from '../types';

/**
 * How a format is read:
 * - `append`: JSONL where a line, once written, never changes meaning. Read incrementally from the
 *   last offset; the parser's state carries over.
 * - `replay`: JSONL mutation logs (later lines rewrite earlier state). Re-read whole when the file
 *   changes; events come from the final state.
 * - `whole`: one JSON document, rewritten whole by its writer.
 */
export type ReadMode = 'append' | 'replay' | 'whole';

export interface TranscriptFile {
  provider: Provider;
  path: string;
  mode: ReadMode;
  /** Format name for diagnostics: claude-jsonl, codex-jsonl, gemini-jsonl, gemini-json, vscode-json, vscode-jsonl, copilot-transcript. */
  format: string;
  /** What the location says: a parent session (folder), the project root (marker file), an id from the name. */
  hints: FileHints;
  /** Among files claiming the same session id, the highest rank wins (e.g. .jsonl over .json). */
  rank: number;
}

export interface FileHints {
  parentId?: string;
  cwd?: string;
  projectHash?: string;
  idFromName?: string;
  kind?: string;
  /** For VS Code: the workspaceStorage folder, whose state.vscdb holds titles. */
  workspaceDir?: string;
}

export interface TranscriptParser {
  readonly meta: SessionMeta;
  /** Lines that could not be parsed (a truncated tail, garbage). */
  malformed: number;
  /** Earliest and latest timestamps of records that parsed. */
  observedFirst: string | null;
  observedLast: string | null;
  /** append and replay modes: one complete line (without its newline) starting at byte `offset`. */
  line(text: string, offset: number): ParsedEvent[];
  /** whole mode: the file's text. */
  whole?(text: string): void;
  /** After the last line (replay) or the text (whole): the events of the final state. */
  finish(): ParsedEvent[];
}

export interface ProviderReader {
  provider: Provider;
  /** Every transcript file under the provider's home folders. Missing folders yield nothing. */
  discover(homes: readonly string[]): Promise<TranscriptFile[]>;
  createParser(file: TranscriptFile): TranscriptParser;
}

/** Tracks the earliest and latest ISO timestamp seen (ISO strings from toISOString compare as text). */
export function observe(parser: { observedFirst: string | null; observedLast: string | null }, ts: string | undefined | null): void {
  if (!ts) return;
  if (parser.observedFirst === null || ts < parser.observedFirst) parser.observedFirst = ts;
  if (parser.observedLast === null || ts > parser.observedLast) parser.observedLast = ts;
}

export function pushModel(meta: SessionMeta, model: string | undefined): void {
  if (model && model !== '<synthetic>' && !meta.models.includes(model)) meta.models.push(model);
}
