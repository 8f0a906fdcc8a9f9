// Inside a real VS Code: activation, the MCP provider and a server VS Code starts itself, the
// Progress Log filled from the ledger and refreshed by other processes, search, the entry webview.

import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import { CommandIds, MCP_PROVIDER_ID, ViewIds, type CommandId } from '../../src/extension/commandIds';
import type { AgentProgressApi } from '../../src/extension/extension';
import { activateSetup } from '../../src/extension/setup/feature';
import type { ProgressLogNode } from '../../src/extension/progressLog/progressLogItems';
import { startChatServer, type ChatServer } from '../helpers/chatServer';
import { EXTENSION_ID, until } from './util';

const run = promisify(execFile);

describe('Agent Progress in VS Code', function () {
  this.timeout(120_000);
  let api: AgentProgressApi;
  let extension: vscode.Extension<AgentProgressApi>;
  let cli: (...args: string[]) => Promise<string>;
  let chat: ChatServer;
  const KEY = 'sk-integration-test-key-0123456789';

  before(async () => {
    extension = vscode.extensions.getExtension<AgentProgressApi>(EXTENSION_ID)!;
    assert.ok(extension, `${EXTENSION_ID} is installed`);
    api = await extension.activate();
    const script = path.join(extension.extensionPath, 'dist', 'cli.js');
    cli = async (...args: string[]) =>
      (await run(process.execPath, [script, ...args], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', AGENT_PROGRESS_DB_PATH: api.ledgerPath } })).stdout;
    chat = await startChatServer();
  });

  after(async () => {
    await chat?.close();
  });

  it('keeps the ledger in workspace storage', () => {
    // That activation opens nothing is checked in activation.test.ts, which runs first: the
    // extension host is shared, and earlier files use the ledger.
    assert.equal(extension.isActive, true);
    const storage = (api.deps.context.storageUri ?? api.deps.context.globalStorageUri).fsPath;
    assert.equal(path.dirname(api.ledgerPath), storage);
    console.log(`      activate() took ${api.activationMs.toFixed(1)} ms`);
  });

  it('registers every contributed command', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    const contributed = (extension.packageJSON.contributes.commands as { command: string }[]).map((c) => c.command);
    for (const id of contributed) assert.ok(registered.has(id), `${id} is contributed but not registered`);
    for (const id of Object.values(CommandIds)) assert.ok(contributed.includes(id), `${id} is registered but not contributed`);
    assert.deepEqual(
      (extension.packageJSON.contributes.mcpServerDefinitionProviders as { id: string }[]).map((p) => p.id),
      [MCP_PROVIDER_ID],
    );
  });

  it('lets VS Code start the bundled server and call log_progress and get_context through it', async function () {
    // Up to 90 s for VS Code to list the tools, and get_context's summary may wait out a sampling
    // request VS Code holds for a consent nobody gives here (60 s) before the endpoint answers.
    this.timeout(240_000);
    // Settings and key first: VS Code passes them when it resolves the server to start it.
    await vscode.workspace.getConfiguration('agentProgress').update('summary.baseUrl', chat.baseUrl, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('agentProgress').update('summary.model', 'integration-model', vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand(CommandIds.setApiKey, KEY);

    const tool = await until(
      async () => {
        // Bounded: with every server asked to start, VS Code may wait on one that never goes live.
        await Promise.race([
          vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true }).then(undefined, () => undefined),
          new Promise((resolve) => setTimeout(resolve, 5_000)),
        ]);
        return vscode.lm.tools.find((t) => t.name.endsWith('log_progress'));
      },
      'the log_progress tool from the Agent Progress server',
      90_000,
      500,
    );
    for (const name of ['get_context', 'search_logs'])
      assert.ok(
        vscode.lm.tools.some((t) => t.name.endsWith(name)),
        name,
      );

    const logged = await vscode.lm.invokeTool(tool.name, {
      input: { projectId: 'vscode-itest', title: 'Logged through VS Code', content: 'VS Code started the bundled server and called it.', tags: ['itest'] },
      toolInvocationToken: undefined,
    });
    // VS Code hands the model the structured content when a tool declares an output schema.
    const text = logged.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    const id = /"id":"([A-Za-z0-9_-]{12})"/.exec(text)?.[1] ?? /\(ID: ([A-Za-z0-9_-]{12})\)/.exec(text)?.[1];
    assert.ok(id, text);

    const getContext = vscode.lm.tools.find((t) => t.name.endsWith('get_context'))!;
    const context = await vscode.lm.invokeTool(getContext.name, { input: { projectId: 'vscode-itest', id }, toolInvocationToken: undefined });
    const summary = context.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    assert.ok(summary.length > 0);
    // With no chat model signed in, sampling cannot answer; the endpoint from the settings did, with the key from SecretStorage.
    const asked = chat.requests.find((r) => r.body.model === 'integration-model');
    assert.ok(asked, `the endpoint was called (${chat.requests.length} requests)`);
    assert.equal(asked.headers.authorization, `Bearer ${KEY}`);

    // The entry is in the ledger the extension reads (through core, not MCP).
    const entry = await (await api.deps.host.progress()).showEntry(id!, 'vscode-itest');
    assert.equal(entry.title, 'Logged through VS Code');
  });

  it('fills the Progress Log from the ledger, newest first', async () => {
    await cli('log', '--project', 'seeded', '--title', 'First seeded entry', '--content', 'one', '--agent', 'cli', '--tag', 'seed');
    await cli('log', '--project', 'seeded', '--title', 'Second seeded entry', '--content', 'two', '--tag', 'seed');
    const provider = api.deps.progressLog;
    const projects = await until(async () => {
      const roots = await provider.getChildren();
      return roots.some((n) => n.kind === 'project' && n.project.projectId === 'seeded') && roots;
    }, 'the seeded project');
    const seeded = projects.find((n): n is Extract<ProgressLogNode, { kind: 'project' }> => n.kind === 'project' && n.project.projectId === 'seeded')!;
    const entries = await provider.getChildren(seeded);
    assert.deepEqual(
      entries.map((n) => (n.kind === 'entry' ? n.entry.title : n.kind)),
      ['Second seeded entry', 'First seeded entry'],
    );
    const item = provider.getTreeItem(entries[1]!);
    assert.match(String(item.description), /^cli · #seed · /);
    assert.equal(item.contextValue, 'entry');
  });

  it('refreshes the view within a second when another process writes the ledger', async () => {
    await vscode.commands.executeCommand(`${ViewIds.progressLog}.focus`);
    await api.deps.host.progress();
    const provider = api.deps.progressLog;
    let changedAt = 0;
    const subscription = provider.onDidChangeTreeData(() => {
      changedAt ||= Date.now();
    });
    try {
      const { stdout } = await run(
        process.execPath,
        [path.join(extension.extensionPath, 'dist', 'cli.js'), 'log', '--project', 'live', '--title', 'Written by a terminal agent', '--content', 'x', '--json'],
        {
          env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', AGENT_PROGRESS_DB_PATH: api.ledgerPath },
        },
      );
      const wroteAt = Date.now();
      const id = (JSON.parse(stdout) as { id: string }).id;
      await until(() => changedAt > 0, 'the view to refresh', 5_000, 20);
      console.log(`      view refreshed ${Math.max(0, changedAt - wroteAt)} ms after the other process wrote`);
      assert.ok(changedAt - wroteAt < 1_000, `refreshed after ${changedAt - wroteAt} ms`);
      const roots = await provider.getChildren();
      const live = roots.find((n) => n.kind === 'project' && n.project.projectId === 'live')!;
      const entries = await provider.getChildren(live);
      assert.ok(entries.some((n) => n.kind === 'entry' && n.entry.id === id));
    } finally {
      subscription.dispose();
    }
  });

  it('reads the views through the machine ledger host, this window holding no copy of the ledger', async () => {
    await api.deps.host.progress();
    const line = await api.deps.host.hostLine();
    const pid = Number(/^Ledger host: pid (\d+), version [^,]+, (\d+) clients?, /.exec(line)?.[1]);
    assert.ok(pid > 0, line);
    assert.notEqual(pid, process.pid, 'the host is its own process, not the extension host');
    assert.doesNotThrow(() => process.kill(pid, 0), `the host ${pid} is alive`);
    // The direct engine (sql.js and its WebAssembly) was never loaded into this window.
    const dist = path.join(extension.extensionPath, 'dist');
    const loaded = Object.keys(require.cache).filter((file) => file.startsWith(dist));
    assert.ok(
      loaded.some((file) => file.endsWith('core.js')),
      `core is loaded from ${dist}: ${loaded.join(', ')}`,
    );
    assert.deepEqual(
      loaded.filter((file) => /vendor-(sqljs|pg)\.js$/.test(file)),
      [],
    );
  });

  it('filters the view by tag and clears the filter', async () => {
    await vscode.commands.executeCommand(CommandIds.filterByTag, 'seed');
    assert.equal(api.deps.progressLogView.description, '#seed');
    const roots = await api.deps.progressLog.getChildren();
    const live = roots.find((n) => n.kind === 'project' && n.project.projectId === 'live')!;
    const filtered = await api.deps.progressLog.getChildren(live);
    assert.deepEqual(
      filtered.map((n) => n.kind),
      ['message'],
    );
    await vscode.commands.executeCommand(CommandIds.clearTagFilter);
    assert.equal(api.deps.progressLogView.description, undefined);
    assert.equal(api.deps.progressLog.tagFilter, undefined);
  });

  it('searches the full text as you type and opens the chosen entry', async () => {
    const out = await cli('log', '--project', 'search', '--title', 'Flaky checkout test', '--content', 'The webhook raced the payment mock; awaited it.', '--json');
    const id = (JSON.parse(out) as { id: string }).id;
    const { pick } = (await vscode.commands.executeCommand(CommandIds.searchLogs)) as { pick: vscode.QuickPick<vscode.QuickPickItem & { entry?: { id: string } }> };
    pick.value = 'webho';
    // The list first shows the newest entries; wait for the ranked result with its snippet.
    const item = await until(() => pick.items.find((i) => i.entry?.id === id && /webhook/.test(i.detail ?? '')), 'the search result', 10_000, 50);
    assert.equal(item.label, 'Flaky checkout test');
    assert.match(item.description ?? '', /^search · /);
    assert.match(item.detail ?? '', /webhook/);
    pick.activeItems = [item];
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await until(() => api.deps.entries.openIds.includes(id), 'the entry webview', 10_000, 50);
  });

  it('typed quickly, shows the newest value’s answer and never an older one after it; a value typed again after a write is searched again', async () => {
    const titles = ['Quartz gauge calibrated', 'Quarry road survey', 'Quasar telemetry parsed', 'Quick fix for the quota alarm'];
    for (const title of titles) await cli('log', '--project', 'typing', '--title', title, '--content', `${title.toLowerCase()}; notes follow.`);
    type Item = vscode.QuickPickItem & { entry?: { id: string; title: string } };
    const { pick, searches } = (await vscode.commands.executeCommand(CommandIds.searchLogs)) as {
      pick: vscode.QuickPick<Item>;
      searches: { idle(): Promise<void> };
    };
    // Every list the extension hands to the quick pick, in order, through the real pick.
    const lists: (readonly Item[])[] = [];
    let proto: object | null = pick;
    let items: PropertyDescriptor | undefined;
    while (proto && !(items = Object.getOwnPropertyDescriptor(proto, 'items'))) proto = Object.getPrototypeOf(proto) as object | null;
    assert.ok(items?.get && items.set, 'the quick pick has an items accessor');
    Object.defineProperty(pick, 'items', {
      configurable: true,
      get: () => items!.get!.call(pick) as readonly Item[],
      set: (v: readonly Item[]) => {
        lists.push(v);
        items!.set!.call(pick, v);
      },
    });
    const received: string[] = [];
    const waiters: { value: string; resolve: () => void }[] = [];
    // Registered after the command's own listener: when this sees a value, the extension has asked for it.
    pick.onDidChangeValue((value) => {
      received.push(value);
      for (const w of waiters.filter((x) => x.value === value)) w.resolve();
    });
    const type = async (value: string): Promise<number> => {
      const count = received.length;
      const seen = new Promise<void>((resolve) => waiters.push({ value, resolve }));
      pick.value = value;
      await Promise.race([seen, until(() => received.slice(count).includes(value), `the extension receiving "${value}"`, 10_000, 500).then(() => undefined)]);
      waiters.length = 0;
      return lists.length;
    };
    const titlesOf = (list: readonly Item[]): string[] => list.flatMap((i) => (i.entry ? [i.entry.title] : [])).sort();
    const answerTitles = async (value: string): Promise<string[]> => (await (await api.deps.host.progress()).quickSearch(value, { limit: 40 })).entries.map((e) => e.title).sort();
    // Each key right after the previous one reached the extension, searches still in flight; then
    // back to "qua" (answered from memory) while "quas" may still be answering.
    for (const value of ['q', 'qu', 'qua', 'quar', 'quas']) await type(value);
    const from = await type('qua');
    await searches.idle();
    const expected = await answerTitles('qua');
    assert.deepEqual(expected, ['Quarry road survey', 'Quartz gauge calibrated', 'Quasar telemetry parsed']);
    // (A value answered from memory is set while the extension receives it, before `from`.)
    assert.deepEqual(titlesOf(lists.at(-1) ?? []), expected, 'the last list set is the answer for "qua"');
    for (const list of lists.slice(from)) assert.deepEqual(titlesOf(list), expected, 'every list set after "qua" was typed is the answer for "qua"');
    assert.deepEqual(titlesOf(pick.items), expected);

    // A write by another process: "qua" typed again is searched again, with the new entry.
    const changed = new Promise<void>((resolve) => {
      const d = api.deps.host.onDidChange(() => {
        d.dispose();
        resolve();
      });
    });
    await cli('log', '--project', 'typing', '--title', 'Quail count logged', '--content', 'quail count; notes follow.');
    await changed;
    await type('quar');
    const again = await type('qua');
    await searches.idle();
    assert.ok(lists.length > again, 'searched again after the write, so set after "qua" reached the extension');
    for (const list of lists.slice(again)) assert.deepEqual(titlesOf(list), [...expected, 'Quail count logged'].sort());
    pick.hide();
  });

  it('opens an entry by id, with hostile content, in a webview with a strict policy', async () => {
    const hostile = '<script>window.pwned = 1</script>\n\n<img src=x onerror="window.pwned = 2">\n\n[click](javascript:alert(1))\n\n**bold** `code`';
    const out = await cli('log', '--project', 'hostile', '--title', '<img src=x onerror=alert(1)>', '--content', hostile, '--json');
    const id = (JSON.parse(out) as { id: string }).id;
    await vscode.commands.executeCommand(CommandIds.openEntryById, id);
    await until(() => api.deps.entries.openIds.includes(id), 'the entry webview', 10_000, 50);
    const tab = await until(
      () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputWebview && t.label === '<img src=x onerror=alert(1)>'),
      'the webview tab',
    );
    assert.ok(tab);
  });

  it('says clearly when an entry id does not exist', async () => {
    const before = api.deps.entries.openIds.length;
    await vscode.commands.executeCommand(CommandIds.openEntryById, 'doesnotexist');
    assert.equal(api.deps.entries.openIds.length, before);
  });

  it("registers a throwaway command from one line of a feature's table, and releases it with the feature", async () => {
    const id = 'agentProgress.throwawayIntegration' as CommandId;
    const feature = activateSetup(api.deps, [[id, (deps) => (word: unknown) => `${String(word)} ${deps.host.ledgerPath}`]]);
    try {
      assert.ok((await vscode.commands.getCommands(true)).includes(id));
      assert.equal(await vscode.commands.executeCommand(id, 'ledger'), `ledger ${api.ledgerPath}`);
    } finally {
      feature.dispose();
    }
    assert.ok(!(await vscode.commands.getCommands(true)).includes(id));
  });

  it('restores an entry page VS Code kept across a window reload, and closes one whose state is not ours', async () => {
    const out = await cli('log', '--project', 'restore', '--title', 'Kept across a reload', '--content', 'Restored by the serializer.', '--json');
    const id = (JSON.parse(out) as { id: string }).id;
    // What VS Code does on reload: a panel of our view type, with the state the page saved.
    const panel = vscode.window.createWebviewPanel('agentProgress.entry', 'Kept across a reload', vscode.ViewColumn.Active, {});
    await api.deps.entries.pages.restore(panel, { key: id, hint: 'restore' });
    assert.ok(api.deps.entries.openIds.includes(id));
    assert.equal(api.deps.entries.pages.pageOf(id)?.content, 'Restored by the serializer.');
    assert.match(panel.webview.html, /script-src 'nonce-/);
    panel.dispose();
    assert.ok(!api.deps.entries.openIds.includes(id));
    let disposed = false;
    const hostile = vscode.window.createWebviewPanel('agentProgress.entry', 'Not ours', vscode.ViewColumn.Active, {});
    hostile.onDidDispose(() => (disposed = true));
    await api.deps.entries.pages.restore(hostile, { key: { $gt: '' } });
    assert.equal(disposed, true);
  });
});
