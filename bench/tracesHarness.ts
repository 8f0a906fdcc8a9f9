// What bench/traces.mjs needs from source, bundled by it with esbuild: the trace service and the
// transcript generators the tests use (Claude Code and Codex layouts).

export { TraceService } from '../src/core/traces/traceService';
export { resolveTraceHomes } from '../src/core/traces/homes';
export { silentLogger } from '../src/core/log';
export { writeClaude, writeCodex, claudeLines, rng } from '../test/helpers/traceFiles';
