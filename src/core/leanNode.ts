// How Agent Progress runs the Node processes that live long (the MCP servers the editor starts
// or an agent's config names, the ledger host and its standby): the same script, a smaller
// resident set. Measured by bench/host.mjs (README, "The ledger host").
//
// - `--max-semi-space-size=1`: V8's young generation stays at 1 MB semi-spaces instead of growing
//   to 16 MB, pages a server touched once and kept (5 MB a server; the host's write traffic grew
//   its heap to 42 MB for 8 MB in use), at the cost of more, shorter scavenges.
// - `MALLOC_MMAP_THRESHOLD_`: glibc serves blocks of 128 KB and more from mmap, returned to the
//   system when freed, but raises that threshold up to 32 MB each time such a block is freed;
//   after loading a bundle (its source read and compiled in large blocks) the blocks that follow
//   come from the heap and stay resident when freed (10 MB a server). A fixed threshold keeps
//   them returned. Other C libraries ignore it; a value the person set wins.

/** Node options before the script. */
export const LEAN_NODE_ARGS: readonly string[] = ['--max-semi-space-size=1'];

/** Environment of the process (glibc's malloc reads it at start, so it cannot be set from inside). */
export const LEAN_NODE_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };

/** `env` with the lean variables added where it does not set them. */
export function withLeanEnv<T extends Record<string, string | undefined>>(env: T): T & Record<string, string | undefined> {
  return { ...LEAN_NODE_ENV, ...env };
}

/**
 * How an MCP server of `toolsets` is launched, by the editor's server definitions and by the
 * configs Connect Other Agents writes alike: `<node> ...args`, run lean, with `env` (whose own
 * values win over the lean ones).
 */
export function serverLaunch(script: string, toolsets: readonly string[], env: Record<string, string>): { args: string[]; env: Record<string, string> } {
  return { args: [...LEAN_NODE_ARGS, script, '--toolset', toolsets.join(',')], env: withLeanEnv(env) };
}
