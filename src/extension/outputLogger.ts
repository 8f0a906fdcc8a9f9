// Core's Logger on VS Code's log output channel ("Agent Progress" in the Output view), with the
// same redaction of secrets as the server's stderr log.

import type * as vscode from 'vscode';
import { loggerOver, redact, type Logger, type LogLevel } from '../core/log';

export function outputLogger(channel: vscode.LogOutputChannel): Logger {
  const secrets = new Set<string>();
  const write = (level: LogLevel, message: string): void => {
    const text = redact(message, secrets);
    if (level === 'debug') channel.debug(text);
    else if (level === 'info') channel.info(text);
    else if (level === 'warn') channel.warn(text);
    else channel.error(text);
  };
  return loggerOver(write, secrets);
}
