// The summary endpoint's API key, kept in VS Code's SecretStorage only: never in settings, logs or
// the ledger. Changes fire an event so the MCP server definitions are refreshed.

import * as vscode from 'vscode';
import { Disposable } from './disposable';

const SECRET_KEY = 'agentProgress.openaiApiKey';

export class ApiKeyStore extends Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;

  constructor(private readonly secrets: vscode.SecretStorage) {
    super();
    this.register(
      secrets.onDidChange((e) => {
        if (e.key === SECRET_KEY) this.changed.fire();
      }),
    );
  }

  async get(): Promise<string | undefined> {
    const key = await this.secrets.get(SECRET_KEY);
    return key && key.trim() !== '' ? key.trim() : undefined;
  }

  async set(key: string): Promise<void> {
    await this.secrets.store(SECRET_KEY, key.trim());
  }

  async clear(): Promise<void> {
    await this.secrets.delete(SECRET_KEY);
  }
}
