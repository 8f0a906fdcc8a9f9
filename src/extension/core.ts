// Loads dist/core.js (see coreBundle.ts) the first time the extension needs core: when a view
// first reads the ledger, a summary is asked for, or a webview message is parsed.

import * as path from 'node:path';
import type * as CoreBundle from './coreBundle';

export type Core = typeof CoreBundle;

let loaded: Core | undefined;

export function loadCore(): Core {
  // A computed path: esbuild leaves this require alone, so core stays in its own file.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand by design
  loaded ??= require(path.join(__dirname, 'core.js')) as Core;
  return loaded;
}
