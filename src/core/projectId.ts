// The default project id: the name of the repository the working directory is in (README "Configuration"), else
// the folder's own name. Reads the file system only; runs no git.

import * as fs from 'node:fs';
import * as path from 'node:path';

export function defaultProjectId(cwd: string): string {
  let dir = path.resolve(cwd);
  for (;;) {
    if (fs.existsSync(path.join(dir, '.git'))) return path.basename(dir) || 'default';
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return path.basename(path.resolve(cwd)) || 'default';
}
