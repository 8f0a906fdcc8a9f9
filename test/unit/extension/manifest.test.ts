// The manifest and the code agree: every contributed command is registered and every registered
// command contributed; every view has a provider; the MCP provider id matches; settings match.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CommandIds, MCP_PROVIDER_ID, TOOLSETS, ViewIds } from '../../../src/extension/commandIds';
import { TOOLSET_NAMES } from '../../../src/mcp/toolsets';
import { commandProblems, extensionSources } from '../../helpers/commandTables';

const root = path.resolve(__dirname, '..', '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  main: string;
  engines: { vscode: string };
  activationEvents: string[];
  capabilities?: { untrustedWorkspaces?: { supported: boolean | 'limited'; description?: string; restrictedConfigurations?: string[] } };
  contributes: {
    commands: { command: string; title: string; category: string }[];
    views: Record<string, { id: string }[]>;
    viewsContainers: { activitybar: { id: string; icon: string }[] };
    viewsWelcome: { view: string; contents: string }[];
    menus: Record<string, { command: string; when?: string }[]>;
    configuration: { properties: Record<string, { items?: { enum?: string[] }; default?: unknown; scope?: string }> };
    mcpServerDefinitionProviders: { id: string; label: string }[];
  };
};

function sources(dir: string): string {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith('.ts'))
    .map((d) => fs.readFileSync(path.join(d.parentPath, d.name), 'utf8'))
    .join('\n');
}

describe('extension manifest', () => {
  const code = sources(path.join(root, 'src', 'extension'));
  const ids = Object.values(CommandIds) as string[];

  it('contributes exactly the commands the code defines, each with the Agent Progress category', () => {
    const contributed = pkg.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual(contributed, [...ids].sort());
    for (const c of pkg.contributes.commands) assert.equal(c.category, 'Agent Progress', c.command);
  });

  it("lists every contributed command by name in one feature's command table", () => {
    const problems = commandProblems({ ids: CommandIds, contributed: pkg.contributes.commands.map((c) => c.command), files: extensionSources(root) });
    assert.deepEqual(problems, []);
  });

  it("would require a throwaway command's manifest entry, and take it with its id and its name in one table", () => {
    // Adding a command: an id in CommandIds, its name in its feature's table, a manifest entry.
    const files = extensionSources(root);
    const table = files.get('setup/feature.ts')!;
    const withLine = table.replace(/(COMMANDS: CommandTable<\w+> = \{)/, '$1 throwaway,');
    assert.notEqual(withLine, table, 'the setup feature has a command table');
    files.set('setup/feature.ts', withLine);
    const ids = { ...CommandIds, throwaway: 'agentProgress.throwaway' };
    const contributed = pkg.contributes.commands.map((c) => c.command);
    assert.deepEqual(commandProblems({ ids, contributed, files }), ['agentProgress.throwaway is not contributed in package.json']);
    assert.deepEqual(commandProblems({ ids, contributed: [...contributed, 'agentProgress.throwaway'], files }), []);
    // An id missing from the tables, or in two, is refused too.
    files.set('setup/feature.ts', table);
    assert.deepEqual(commandProblems({ ids, contributed: [...contributed, 'agentProgress.throwaway'], files }), ['CommandIds.throwaway is in 0 command tables']);
    files.set('review/feature.ts', files.get('review/feature.ts')!.replace(/(COMMANDS: CommandTable<\w+> = \{)/, '$1 openTask,'));
    assert.match(commandProblems({ ids: CommandIds, contributed, files }).join('\n'), /CommandIds\.openTask is in 2 command tables/);
  });

  it('references only contributed commands in menus', () => {
    for (const [menu, items] of Object.entries(pkg.contributes.menus)) {
      for (const item of items) assert.ok(ids.includes(item.command), `${menu}: ${item.command}`);
    }
  });

  it('gives every view a provider and a welcome text, in a container that exists', () => {
    const containers: string[] = pkg.contributes.viewsContainers.activitybar.map((c) => c.id);
    assert.deepEqual(containers, [ViewIds.container as string]);
    const views = Object.entries(pkg.contributes.views).flatMap(([container, vs]) => {
      assert.ok(containers.includes(container), container);
      return vs.map((v) => v.id);
    });
    const viewIdNames = Object.entries(ViewIds).filter(([k]) => k !== 'container');
    assert.deepEqual(views.sort(), viewIdNames.map(([, v]) => v).sort());
    for (const [name] of viewIdNames) assert.match(code, new RegExp(`(\\btreeView|createTreeView|createWebviewPanel|registerWebviewViewProvider)\\(ViewIds\\.${name}\\b`), name);
    for (const view of views)
      assert.ok(
        pkg.contributes.viewsWelcome.some((w) => w.view === view),
        `${view} has no viewsWelcome`,
      );
    assert.ok(fs.existsSync(path.join(root, pkg.contributes.viewsContainers.activitybar[0]!.icon)));
  });

  it('registers the MCP provider under the contributed id', () => {
    assert.deepEqual(
      pkg.contributes.mcpServerDefinitionProviders.map((p) => p.id),
      [MCP_PROVIDER_ID],
    );
    assert.match(code, /registerMcpServerDefinitionProvider\(MCP_PROVIDER_ID,/);
  });

  it('offers exactly the toolsets the server has, all on by default', () => {
    const setting = pkg.contributes.configuration.properties['agentProgress.toolsets']!;
    assert.deepEqual(setting.items?.enum, [...TOOLSETS]);
    assert.deepEqual(setting.default, [...TOOLSETS]);
    assert.deepEqual([...TOOLSETS], [...TOOLSET_NAMES]);
  });

  it('leaves activation to VS Code but for restoring pages, and needs the VS Code that has the MCP provider API', () => {
    // Views and commands activate by their contribution; a page kept across a window reload
    // activates by its view type, which every page registry (webviews/pages.ts) serializes.
    const viewTypes = [...code.matchAll(/export const \w+_VIEW_TYPE = '([\w.]+)'/g)].map((m) => m[1]!);
    assert.equal(viewTypes.length, 4, 'four page kinds');
    assert.deepEqual([...pkg.activationEvents].sort(), viewTypes.map((t) => `onWebviewPanel:${t}`).sort());
    const [major, minor] = pkg.engines.vscode.replace(/^\^/, '').split('.').map(Number);
    assert.ok(major! > 1 || minor! >= 101, pkg.engines.vscode);
    assert.equal(pkg.main, './dist/extension.js');
  });

  it('packages only what runs: an allow-list .vscodeignore', () => {
    const ignore = fs
      .readFileSync(path.join(root, '.vscodeignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    assert.equal(
      ignore.find((l) => l && !l.startsWith('#')),
      '**',
      'the first rule excludes everything',
    );
    assert.ok(!ignore.some((l) => /node_modules/.test(l) && l.startsWith('!')));
  });

  it("keeps every endpoint, path and credential setting out of a workspace's reach (machine scope)", () => {
    const sensitive = Object.keys(pkg.contributes.configuration.properties).filter((key) => /ledgerPath|databaseUrl|baseUrl|Home$|UserDir$|apiKey|token/i.test(key));
    assert.deepEqual(sensitive.sort(), [
      'agentProgress.databaseUrl',
      'agentProgress.ledgerPath',
      'agentProgress.summary.baseUrl',
      'agentProgress.traces.claudeHome',
      'agentProgress.traces.codexHome',
      'agentProgress.traces.geminiHome',
      'agentProgress.traces.vscodeUserDir',
    ]);
    for (const key of sensitive)
      assert.ok(['machine', 'application'].includes(pkg.contributes.configuration.properties[key]!.scope ?? ''), `${key} is machine- or application-scoped`);
  });

  it('declares what works in Restricted Mode, and restricts only settings it contributes', () => {
    const untrusted = pkg.capabilities?.untrustedWorkspaces;
    assert.equal(untrusted?.supported, 'limited');
    assert.match(untrusted?.description ?? '', /Restricted Mode/);
    assert.match(untrusted?.description ?? '', /agent-progress\.config\.json/);
    for (const key of untrusted?.restrictedConfigurations ?? []) {
      const setting = pkg.contributes.configuration.properties[key];
      assert.ok(setting, `${key} is contributed`);
      assert.equal(setting.scope, undefined, `${key}: a machine-scoped setting is never read from a workspace anyway`);
    }
    assert.ok(code.includes('vscode.workspace.isTrusted'), 'the extension asks whether the workspace is trusted');
    assert.ok(code.includes('onDidGrantWorkspaceTrust'), 'and offers the servers again when it becomes trusted');
  });
});
