// Temp folders per test, removed afterwards.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const made: string[] = [];

export function tempDir(prefix = 'ap-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  while (made.length > 0) fs.rmSync(made.pop()!, { recursive: true, force: true });
}

/** Registers cleanup for the enclosing describe block. */
export function useTempDirs(): void {
  afterEach(removeTempDirs);
}
