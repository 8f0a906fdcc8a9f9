// createServer(): an MCP server for the chosen toolsets over the shared services, apart from any
// transport so tests can connect it in memory and main.ts over stdio.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '../core/log';
import { newQueueSession, type QueueSession } from '../core/queue/queueService';
import type { Services } from '../core/services';
import { installPrompts } from './prompts';
import { installResources } from './resources';
import { samplingProvider } from './sampling';
import { installTools } from './toolRegistry';
import { toolsFor, type ToolsetName } from './toolsets';

export const SERVER_NAME = 'agent-progress';

export interface ServerDeps {
  services: Services;
  logger: Logger;
  toolsets: readonly ToolsetName[];
  version: string;
  /** The project id of the workspace that started this server, named in the instructions. */
  project?: string | undefined;
  /** This connection's session (one per stdio process; one per HTTP session). */
  session?: QueueSession;
}

/** What the client's model is told about this server: one short paragraph per toolset served. */
export function serverInstructions(toolsets: readonly ToolsetName[], project: string | undefined): string {
  const projectId = project ? `projectId "${project}"` : 'projectId = the repository name';
  const parts: Record<ToolsetName, string> = {
    progress:
      `Progress log: at the start of a task call search_logs (${projectId}) and get_context on the entries that matter; ` +
      'after each meaningful step call log_progress with what you did, where and why.',
    queue:
      'Task queue: join_project, register_agent once, then request_task; finish each task with complete_task or fail_task ' +
      'before requesting the next, and call extend_lease when work outlasts the lease.',
    workflow:
      'Workflows: start_workflow for multi-step work, start_task before changing files, log_decision / log_issue / ' +
      'log_milestone as you go, and complete_task, which records the files the task changed.',
    traces:
      'Agent sessions: list_sessions and search_event_previews find what agents did in their own transcripts on this ' +
      'machine; get_session_details and analyze_session explain one session, get_event_details shows one event whole.',
    review:
      'Review: call get_workflow first (it starts the review from .agent-progress/reviews/ and lists the agents in order), ' +
      'set_phase agents-running, then start_agent and complete_agent around each audit, set_phase synthesizing, publishing, completed; ' +
      'queue comments and thread changes with add_action (a person approves them) and read open threads with get_threads.',
  };
  return ['Agent Progress is the shared ledger of every agent working on this repository.', ...toolsets.map((t) => parts[t])].join(' ');
}

export function createServer(deps: ServerDeps): McpServer {
  const tools = toolsFor(deps.toolsets, deps.services);
  const mcp = new McpServer(
    { name: deps.toolsets.length === 1 ? `${SERVER_NAME}-${deps.toolsets[0]}` : SERVER_NAME, title: 'Agent Progress', version: deps.version },
    {
      instructions: serverInstructions(deps.toolsets, deps.project),
    },
  );
  const session = deps.session ?? newQueueSession();
  installTools(mcp.server, tools, { logger: deps.logger, samplingProvider: () => samplingProvider(mcp.server), session });
  const context = { services: deps.services, logger: deps.logger, toolsets: deps.toolsets, project: deps.project, session };
  installResources(mcp.server, context);
  installPrompts(mcp, context);
  return mcp;
}
