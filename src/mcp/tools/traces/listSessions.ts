// list_sessions: recent agent sessions across Claude Code, Codex, Gemini CLI and VS Code Copilot
// Chat, newest first, one small page at a time (AgTrace specification, README "Tools").

import { listSessionsInput, listSessionsOutput } from '../../../core/traces/schemas';
import { READ_ONLY, type ToolDefinition } from '../../toolRegistry';
import type { TraceToolDeps } from './deps';
import { traced } from './traceResult';

export function registerListSessions(deps: TraceToolDeps): ToolDefinition {
  return {
    name: 'list_sessions',
    title: 'List agent sessions',
    description:
      'Browse the coding-agent sessions found on this machine (Claude Code, OpenAI Codex CLI, Gemini CLI, VS Code Copilot Chat), newest first: ' +
      'id, project, first prompt, turns, tool calls and failures, tokens, duration and a 0-100 health score. About 1 KB per session; pages with next_cursor. ' +
      'Filter by provider, project_hash (from get_project_info) or a time range. Next: get_session_details for one session, analyze_session for its health.',
    input: listSessionsInput,
    output: listSessionsOutput,
    annotations: READ_ONLY,
    handler: (args) => traced('list_sessions', deps.logger, async () => (await deps.traces()).listSessions(args)),
  };
}
