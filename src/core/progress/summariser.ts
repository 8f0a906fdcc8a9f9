// Summaries of log entries (Agent Progress Tracker specification, README "Tools"; ARCHITECTURE.md "What agents see besides the tools"): the first provider that answers
// wins (MCP sampling, an OpenAI-compatible endpoint, the editor's language model), and when none
// can, a deterministic extract of the content that is never cached.

import type { Logger } from '../log';
import { codePointLength, truncateText } from '../text';
import { LIMITS } from './limits';
import type { SummarySource } from './types';

export const SYSTEM_PROMPT =
  'You are a technical summariser. Summarise the following agent work log in 2-3 sentences. Focus on: what was done, key files/components changed, and outcome. Be concise and factual. Do not use phrases like "The agent" - write in past tense as if reporting completed work.';
export const MAX_SUMMARY_TOKENS = 150;
export const SUMMARY_TEMPERATURE = 0.3;

export interface SummaryRequest {
  systemPrompt: string;
  userPrompt: string;
  maxTokens: number;
  temperature: number;
}

export interface SummaryProvider {
  readonly source: Exclude<SummarySource, 'fallback'>;
  /** For log lines, e.g. "MCP sampling" or "the OpenAI-compatible endpoint api.openai.com". */
  readonly label: string;
  summarise(request: SummaryRequest, signal?: AbortSignal): Promise<string>;
}

/** Thrown by a provider that cannot serve right now (no key, no model): skipped without a warning. */
export class ProviderUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderUnavailable';
  }
}

export interface SummaryResult {
  summary: string;
  source: SummarySource;
}

export function userPrompt(title: string, content: string): string {
  return `Title: ${title}\n\nContent:\n${content}`;
}

/** Trims model output to a plain summary of at most 500 characters; '' when there is none. */
export function normaliseSummary(text: string): string {
  let out = text.trim();
  if (/^["'`].*["'`]$/s.test(out)) out = out.slice(1, -1).trim();
  out = out.replace(/^summary:\s*/i, '');
  return codePointLength(out) > LIMITS.summary ? truncateText(out, LIMITS.summary) : out;
}

/**
 * The fallback: whole sentences from the start of the content, up to 500 characters, with
 * whitespace collapsed. Deterministic, so the same entry always gets the same extract.
 */
export function extractiveSummary(content: string): string {
  const flat = content.replace(/\s+/g, ' ').trim();
  if (codePointLength(flat) <= LIMITS.summary) return flat;
  // A split, not a match: a sentence regex backtracks quadratically on text without full stops.
  const sentences = flat.split(/(?<=[.!?])\s+/);
  let out = '';
  for (const sentence of sentences) {
    const next = out ? `${out} ${sentence.trim()}` : sentence.trim();
    if (codePointLength(next) > LIMITS.summary) break;
    out = next;
  }
  return out || truncateText(flat, LIMITS.summary);
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const status = (err as { status?: unknown }).status;
    // The openai client's messages already begin with the status ("429 Rate limit..."): say it once.
    if (typeof status !== 'number' || new RegExp(`^${status}\\b`).test(err.message)) return err.message;
    return `${status} ${err.message}`;
  }
  return String(err);
}

export class Summariser {
  constructor(
    private readonly providers: readonly SummaryProvider[],
    private readonly logger: Logger,
  ) {}

  /** Providers configured for this process (the endpoint), after any given per call (sampling). */
  async summarise(entry: { title: string; content: string }, first: readonly SummaryProvider[] = [], signal?: AbortSignal): Promise<SummaryResult> {
    const request: SummaryRequest = {
      systemPrompt: SYSTEM_PROMPT,
      userPrompt: userPrompt(entry.title, entry.content),
      maxTokens: MAX_SUMMARY_TOKENS,
      temperature: SUMMARY_TEMPERATURE,
    };
    for (const provider of [...first, ...this.providers]) {
      if (signal?.aborted) break;
      try {
        const summary = normaliseSummary(await provider.summarise(request, signal));
        if (summary) return { summary, source: provider.source };
        this.logger.warn(`Summary by ${provider.label} came back empty; trying the next way`);
      } catch (err) {
        if (err instanceof Error && err.name === 'ProviderUnavailable') this.logger.debug(`Summary by ${provider.label} skipped: ${err.message}`);
        else this.logger.warn(`Summary by ${provider.label} failed: ${describe(err)}`);
      }
    }
    return { summary: extractiveSummary(entry.content), source: 'fallback' };
  }

  get hasConfiguredProvider(): boolean {
    return this.providers.length > 0;
  }
}
