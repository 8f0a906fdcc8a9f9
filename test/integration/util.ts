// What the in-VS Code tests share: the extension's id, and waiting for a condition with a clear
// message when it never comes (VS Code is slower than plain Node: longer deadline, longer steps).

import { waitFor } from '../helpers/wait';

export const EXTENSION_ID = 'agent-progress.agent-progress';

/** Polls `probe` until it returns a value (not undefined or false); fails naming `what`. */
export function until<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 30_000, stepMs = 100): Promise<T> {
  return waitFor(probe, what, timeoutMs, stepMs);
}
