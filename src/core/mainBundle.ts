// Whether a bundle runs as the process's main program. `require.main === module` says so when Node
// or the code-cache launcher (codeCache.ts runBundle) loads it as the main module; when the launcher
// has to fall back to a plain require() (a runtime whose module internals it cannot use), it names
// the bundle here first, as that require cannot make it the main module.

const KEY = Symbol.for('agent-progress.mainBundle');

type Marked = typeof globalThis & { [KEY]?: string };

/** Names `file` as the bundle the launcher runs as the main program. */
export function markMainBundle(file: string): void {
  (globalThis as Marked)[KEY] = file;
}

/** Whether `mod` (a bundle's `module`) runs as the main program. */
export function isMainBundle(mod: NodeJS.Module, main: NodeJS.Module | undefined): boolean {
  return main === mod || (globalThis as Marked)[KEY] === mod.filename;
}
