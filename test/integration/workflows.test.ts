// Inside a real VS Code: the workflow toolset's server started by VS Code itself in the workspace
// folder (a git repository made here), its tools called through VS Code's language-model API,
// then the Workflows view, the status bar while the task runs, the review notification, the diff
// editor on a changed file, and the workflow page.

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CommandIds, SNAPSHOT_SCHEME, ViewIds } from '../../src/extension/commandIds';
import type { AgentProgressApi } from '../../src/extension/extension';
import type { WorkflowNode } from '../../src/extension/workflows/workflowItems';
import { EXTENSION_ID, until } from './util';

function git(cwd: string, ...args: string[]): string {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 't@example.com' };
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE']) delete env[k];
  return execFileSync('git', args, { cwd, env }).toString('utf8');
}

/** The workflow server's tool of that name (complete_task exists in the queue server too). */
function tool(name: string): vscode.LanguageModelToolInformation | undefined {
  return vscode.lm.tools.find(
    (t) => t.name.endsWith(name) && (name !== 'complete_task' || Boolean((t.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties?.outcome)),
  );
}

async function invoke(name: string, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const info = tool(name);
  assert.ok(info, `the ${name} tool`);
  const result = await vscode.lm.invokeTool(info.name, { input, toolInvocationToken: undefined });
  const text = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('\n');
  // VS Code hands the model the structured content (JSON) when the tool declares an output schema.
  for (const candidate of [text, ...text.split('\n')]) {
    try {
      const parsed = JSON.parse(candidate) as Record<string, unknown>;
      if (parsed && typeof parsed === 'object') return parsed;
    } catch {
      // not this part
    }
  }
  const ids = /task ([0-9a-z]{12})|workflow ([0-9a-z]{12})/.exec(text);
  assert.fail(`${name} answered without structured content: ${text.slice(0, 400)} ${ids ? '' : ''}`);
}

describe('Workflows in VS Code', function () {
  this.timeout(180_000);
  let api: AgentProgressApi;
  let workspace: string;
  let workflowId: string;
  let taskId: string;

  before(async () => {
    const extension = vscode.extensions.getExtension<AgentProgressApi>(EXTENSION_ID)!;
    api = await extension.activate();
    workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    if (!fs.existsSync(path.join(workspace, '.git'))) git(workspace, 'init', '-q', '-b', 'main');
    fs.mkdirSync(path.join(workspace, 'src', 'auth'), { recursive: true });
    fs.writeFileSync(path.join(workspace, 'src', 'auth', 'session.ts'), 'export const session = "cookie";\n');
    fs.writeFileSync(path.join(workspace, 'README.md'), '# Workspace\n');
    git(workspace, 'add', '-A');
    git(workspace, 'commit', '-q', '-m', 'initial');
    // Dirt from before the task: it must not be blamed on it.
    fs.writeFileSync(path.join(workspace, 'README.md'), '# Workspace, edited before the task\n');
    await until(
      async () => {
        // Bounded: with every server asked to start, VS Code may wait on one that never goes live.
        await Promise.race([
          vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true }).then(undefined, () => undefined),
          new Promise((resolve) => setTimeout(resolve, 5_000)),
        ]);
        return tool('start_workflow') && tool('complete_task');
      },
      'the workflow tools from the Agent Progress server',
      120_000,
      500,
    );
  });

  it("starts a workflow and a task through the tools VS Code lists, snapshotting the workspace's repository", async () => {
    const wf = await invoke('start_workflow', {
      name: 'JWT sessions',
      description: 'Replace cookie sessions with JWT',
      plan: [
        { step: '1', goal: 'Middleware' },
        { step: '2', goal: 'Login route' },
      ],
    });
    workflowId = String(wf.workflow_id);
    const started = await invoke('start_task', { workflow_id: workflowId, name: 'Setup JWT middleware', goal: 'Verify tokens on every request', areas: ['auth'] });
    taskId = String(started.task_id);
    assert.equal(started.snapshot_type, 'git', 'VS Code starts the server in the workspace folder');
    assert.equal(fs.realpathSync(String(started.repository)), fs.realpathSync(workspace));
  });

  it('shows the running task in the Workflows view and its milestone progress in the status bar', async () => {
    await vscode.commands.executeCommand(`${ViewIds.workflows}.focus`);
    await invoke('log_milestone', { task_id: taskId, message: 'Writing the middleware', progress: 60 });
    const status = api.deps.workflowStatus;
    await until(async () => {
      await status.update();
      return status.item.text.includes('60%') && status.item.text;
    }, 'the status bar to show 60%');
    assert.equal(status.item.text, '$(sync~spin) Setup JWT middleware · 60% · Writing the middleware');
    assert.equal(status.visible, true);
    const roots = await api.deps.workflows.getChildren();
    const wfNode = roots.find((n): n is Extract<WorkflowNode, { kind: 'workflow' }> => n.kind === 'workflow' && n.workflow.id === workflowId);
    assert.ok(wfNode, JSON.stringify(roots.map((r) => r.kind)));
    assert.equal(api.deps.workflows.showsProgress, true, 'the view shows a progress bar while a task runs');
    // The view reads the ledger again when it changes (within a second), as a person sees it.
    const item = await until(async () => {
      const tasks = await api.deps.workflows.getChildren(wfNode);
      const row = api.deps.workflows.getTreeItem(tasks[0]!);
      return String(row.description).startsWith('60%') && row;
    }, 'the task row to show 60%');
    assert.equal(item.label, 'Setup JWT middleware');
    assert.match(String(item.description), /^60% · Writing the middleware · started/);
    assert.equal((item.iconPath as vscode.ThemeIcon).id, 'sync~spin');
  });

  it('raises a notification with an Open button when an issue asks for human review', async () => {
    const before = api.deps.reviews.shown.length;
    await invoke('log_issue', {
      task_id: taskId,
      type: 'bug_encountered',
      description: 'The JWT library mishandles clock skew',
      resolution: 'Added 30 s of leeway',
      requires_human_review: true,
    });
    const shown = await until(() => api.deps.reviews.shown.length > before && api.deps.reviews.shown[api.deps.reviews.shown.length - 1], 'the review notification', 15_000);
    assert.equal(shown.message, 'Agent Progress: an agent asks for a review in "Setup JWT middleware": The JWT library mishandles clock skew');
    assert.deepEqual(
      shown.requests.map((r) => [r.kind, r.taskId, r.workflowId]),
      [['issue', taskId, workflowId]],
    );
    // The button runs this command with the request's task.
    await vscode.commands.executeCommand(CommandIds.openWorkflow, { workflowId, taskId });
    await until(() => api.deps.workflowPanels.openIds.includes(workflowId), 'the workflow page');
    const page = api.deps.workflowPanels.pageOf(workflowId)!;
    assert.deepEqual(
      page.plan.map((s) => s.goal),
      ['Middleware', 'Login route'],
    );
    assert.ok(page.timeline.some((i) => i.kind === 'issue' && i.review));
  });

  it('completes the task, lists its files changed, and opens a changed file in the diff editor', async () => {
    fs.writeFileSync(path.join(workspace, 'src', 'auth', 'session.ts'), 'export const session = "jwt";\n');
    fs.mkdirSync(path.join(workspace, 'src', 'middleware'), { recursive: true });
    fs.writeFileSync(path.join(workspace, 'src', 'middleware', 'jwt.ts'), 'export function verify() {}\n');
    const done = await invoke('complete_task', {
      task_id: taskId,
      status: 'partial_success',
      outcome: { summary: 'Middleware in place.', manual_review_needed: true, manual_review_reason: 'Check the leeway' },
    });
    assert.deepEqual(done.files_changed, { added: ['src/middleware/jwt.ts'], modified: ['src/auth/session.ts'], deleted: [], renamed: [] });

    await until(() => api.deps.reviews.shown.some((s) => s.requests.some((r) => r.kind === 'task_completed' && r.taskId === taskId)), 'the manual-review notification', 15_000);

    const roots = await until(async () => {
      const r = await api.deps.workflows.getChildren();
      const n = r.find((x) => x.kind === 'workflow' && x.workflow.id === workflowId);
      return n && n.kind === 'workflow' && n.workflow.running === 0 && r;
    }, 'the view to show the completed task');
    const wfNode = roots.find((n) => n.kind === 'workflow' && n.workflow.id === workflowId)!;
    const [taskNode] = await api.deps.workflows.getChildren(wfNode);
    const groups = await api.deps.workflows.getChildren(taskNode);
    assert.deepEqual(
      groups.map((g) => (g.kind === 'group' ? g.group : g.kind)),
      ['issues', 'milestones', 'files'],
    );
    const files = await api.deps.workflows.getChildren(groups[2]);
    assert.deepEqual(
      files.map((f) => (f.kind === 'file' ? `${f.file.status} ${f.file.path}` : f.kind)),
      ['modified src/auth/session.ts', 'added src/middleware/jwt.ts'],
    );
    assert.equal((api.deps.workflows.getTreeItem(taskNode!).iconPath as vscode.ThemeIcon).id, 'report');

    const modified = files[0]!;
    const treeItem = api.deps.workflows.getTreeItem(modified);
    await vscode.commands.executeCommand(treeItem.command!.command, ...(treeItem.command!.arguments ?? []));
    const tab = await until(() => {
      const t = vscode.window.tabGroups.activeTabGroup.activeTab;
      return t?.input instanceof vscode.TabInputTextDiff && t;
    }, 'the diff editor');
    const input = tab.input as vscode.TabInputTextDiff;
    assert.equal(input.original.scheme, SNAPSHOT_SCHEME);
    assert.equal(input.modified.fsPath, path.join(workspace, 'src', 'auth', 'session.ts'));
    const original = await vscode.workspace.openTextDocument(input.original);
    assert.equal(original.getText(), 'export const session = "cookie";\n', 'the left side is the file as it was when the task started');
    assert.match(tab.label, /session\.ts \(start of "Setup JWT middleware" ↔ now\)/);
    // Nothing runs any more: the status bar item goes away.
    await until(async () => {
      await api.deps.workflowStatus.update();
      return !api.deps.workflowStatus.visible;
    }, 'the status bar to drop the completed task');
  });
});
