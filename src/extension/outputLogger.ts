// Core's Logger on VS Code's log output channel ("Agent Progress" in the Output view), with the
// same redaction of secrets as the server's stderr log.

import type * as vscode from 'vscode';
import { redact, type Logger, type LogLevel } from '../core/log';

export function outputLogger(channel: vscode.LogOutputChannel): Logger {
  const secrets = new Set<string>();
  const said = new Set<string>();
  const write = (level: LogLevel, message: string): void => {
    const text = redact(message, secrets);
    if (level === 'debug') channel.debug(text);
    else if (level === 'info') channel.info(text);
    else if (level === 'warn') channel.warn(text);
    else channel.error(text);
  };
  return {
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
    addSecret: (s) => {
      if (s && s.trim().length >= 4) secrets.add(s.trim());
    },
    once: (key, level, message) => {
      if (said.has(key)) return;
      said.add(key);
      write(level, message);
    },
  };
}
