// What every CLI command is and receives.

import type { Services } from '../core/services';
import type { Output } from './output';

export interface CommandContext {
  services: Services;
  out: Output;
  cwd: string;
  readStdin: () => Promise<string>;
  stdinIsTty: boolean;
}

export interface Command {
  name: string;
  summary: string;
  /** The heading it is listed under in --help. */
  group?: string;
  usage: string;
  /** The command's names for the MCP argument names core's messages use (startDate: '--since'). */
  terms?: Readonly<Record<string, string>>;
  /** Exit code for bad usage instead of 2 (the hook: Claude Code reads 2 as "block the agent"). */
  exitCodeForUsage?: number;
  run(argv: string[], ctx: CommandContext): Promise<void>;
}
