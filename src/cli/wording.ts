// Core's messages speak the MCP tools' language (startDate, search_logs); a person at a terminal
// typed --since and "agent-progress search". This rewrites a core error for the command that
// failed: argument names to the command's flags or arguments, tool names to CLI commands.

/** Tools whose CLI command has another name; any other tool maps to its kebab-case command if there is one. */
const TOOL_COMMANDS: Readonly<Record<string, string>> = {
  search_logs: 'search',
  log_progress: 'log',
  get_context: 'show',
};

/** What the queue's positional arguments are called in every command's usage line. */
const QUEUE_TERMS: Readonly<Record<string, string>> = {
  projectId: '<project>',
  taskId: '<task-id>',
  typeId: '<type>',
  agentName: '<agent-name>',
  additionalMinutes: '<additional-minutes>',
  explanation: '<explanation>',
  apiKey: '--key',
};

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The CLI command a tool corresponds to, if any. */
export function commandForTool(tool: string, commands: readonly string[]): string | undefined {
  const name = TOOL_COMMANDS[tool] ?? tool.replace(/_/g, '-');
  return commands.includes(name) ? name : undefined;
}

/**
 * `message` with the MCP argument names in `terms` (then the queue's) and the tool names with a
 * CLI command replaced. A camelCase name is replaced wherever it stands as a word; a plain word
 * (title, content, limit) only where core's validation puts a name (first, or after "for "), so
 * English prose keeps its words. "variables.threadId" keeps its variable name.
 */
export function cliWording(message: string, command: { terms?: Readonly<Record<string, string>>; usage: string }, commands: readonly string[]): string {
  // A queue name is said the usage's way only where the command's usage has that argument.
  const queue = Object.entries(QUEUE_TERMS).filter(([, said]) => command.usage.includes(said));
  const terms = { ...Object.fromEntries(queue), ...(command.terms ?? {}) };
  let out = message.replace(/\b[a-z]+(?:_[a-z]+)+\b/g, (word) => {
    const command = commandForTool(word, commands);
    return command === undefined ? word : `"agent-progress ${command}"`;
  });
  for (const [arg, flag] of Object.entries(terms)) {
    const where = /[A-Z]/.test(arg) ? '(?<![.\\w-])' : '(?<=^|\\bfor )';
    out = out.replace(new RegExp(`${where}${escape(arg)}(?![\\w])`, 'g'), flag);
  }
  return out;
}
