// dist/cli.js, what `agent-progress` runs: the CLI's bundle (dist/cli-main.js, from main.ts) with
// V8's code cache (src/core/codeCache.ts), one cache a command. Nothing else loads here.

import * as path from 'node:path';
import { runBundle } from '../core/codeCache';

/** The command's name (main.ts reads it the same way: the first word that is not a global option or its value). */
function commandName(argv: readonly string[]): string {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--db' || arg === '--config') i++;
    else if (!arg.startsWith('--db=') && !arg.startsWith('--config=')) return /^[a-z][a-z-]{0,40}$/.test(arg) ? arg : '';
  }
  return '';
}

runBundle(path.join(__dirname, 'cli-main.js'), commandName(process.argv.slice(2)));
