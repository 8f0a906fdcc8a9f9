// dist/server.js, what the editor and agents' configs start: the server's bundle
// (dist/server-main.js, from main.ts) with V8's code cache (src/core/codeCache.ts), one cache for
// each set of toolsets. Nothing else loads here.

import * as path from 'node:path';
import { runBundle } from '../core/codeCache';

/** The --toolset value as given (main.ts parses and checks it), or '' for the default. */
function toolsets(argv: readonly string[]): string {
  let value = '';
  argv.forEach((arg, i) => {
    if (arg === '--toolset' || arg === '--toolsets') value = argv[i + 1] ?? '';
    else if (arg.startsWith('--toolset=') || arg.startsWith('--toolsets=')) value = arg.slice(arg.indexOf('=') + 1);
  });
  return /^[a-z,]{1,100}$/.test(value) ? value : '';
}

runBundle(path.join(__dirname, 'server-main.js'), toolsets(process.argv.slice(2)) + (process.argv.includes('--http') ? ' http' : ''));
