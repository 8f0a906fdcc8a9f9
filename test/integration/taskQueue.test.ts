// Inside a real VS Code: the Task Queue view filled by other processes (the CLI), tasks imported
// from a file, an agent taking one through the queue server VS Code starts itself, the lease in the
// view and the status bar, the task page, and a person's requeue and cancel.

import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import { CommandIds } from '../../src/extension/commandIds';
import type { AgentProgressApi } from '../../src/extension/extension';
import type { TaskQueueNode } from '../../src/extension/queue/taskQueueItems';
import { EXTENSION_ID, until } from './util';

const run = promisify(execFile);

/** The queue server's tool of that name (complete_task exists in the workflow server too). */
function queueTool(name: string): vscode.LanguageModelToolInformation | undefined {
  return vscode.lm.tools.find(
    (t) => t.name.endsWith(name) && (name !== 'complete_task' || Boolean((t.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties?.taskId)),
  );
}

async function invoke(name: string, input: Record<string, unknown>): Promise<string> {
  const info = queueTool(name);
  assert.ok(info, `the ${name} tool`);
  const result = await vscode.lm.invokeTool(info.name, { input, toolInvocationToken: undefined });
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('\n');
}

describe('Task Queue in VS Code', function () {
  this.timeout(180_000);
  let api: AgentProgressApi;
  let cli: (...args: string[]) => Promise<string>;
  let tmp: string;
  const PROJECT = 'itest-queue';

  before(async () => {
    const extension = vscode.extensions.getExtension<AgentProgressApi>(EXTENSION_ID)!;
    api = await extension.activate();
    const script = path.join(extension.extensionPath, 'dist', 'cli.js');
    cli = async (...args: string[]) =>
      (await run(process.execPath, [script, ...args], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', AGENT_PROGRESS_DB_PATH: api.ledgerPath } })).stdout;
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-queue-itest-'));
    await vscode.commands.executeCommand('agentProgress.taskQueue.focus');
  });

  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  async function roots(): Promise<TaskQueueNode[]> {
    return (await api.deps.taskQueue.getChildren()) ?? [];
  }

  async function projectNode(): Promise<Extract<TaskQueueNode, { kind: 'queueProject' }> | undefined> {
    return (await roots()).find((n): n is Extract<TaskQueueNode, { kind: 'queueProject' }> => n.kind === 'queueProject' && n.project.id === PROJECT);
  }

  async function tasksIn(status: string): Promise<Extract<TaskQueueNode, { kind: 'task' }>[]> {
    const project = await projectNode();
    if (!project) return [];
    const group = (await api.deps.taskQueue.getChildren(project)).find((n) => n.kind === 'status' && n.status === status);
    if (!group) return [];
    return (await api.deps.taskQueue.getChildren(group)).filter((n): n is Extract<TaskQueueNode, { kind: 'task' }> => n.kind === 'task');
  }

  it('shows a project and its tasks as soon as another process adds them', async () => {
    let refreshed = 0;
    const sub = api.deps.taskQueue.onDidChangeTreeData(() => refreshed++);
    try {
      await cli('create-project', PROJECT, 'Integration test queue', '--lease-duration', '5');
      await cli('add-task', PROJECT, '-', 'Write the release notes');
      const node = await until(async () => {
        const n = await projectNode();
        return n && n.project.stats.queuedTasks === 1 ? n : undefined;
      }, 'the project with one queued task in the view');
      assert.ok(refreshed > 0, "the view refreshed by itself on the other process's write");
      const item = api.deps.taskQueue.getTreeItem(node);
      assert.match(String(item.description), /0 running · 1 queued · 0 done/);
      const [task] = await tasksIn('queued');
      assert.equal(api.deps.taskQueue.getTreeItem(task!).label, 'Write the release notes');
    } finally {
      sub.dispose();
    }
  });

  it('imports tasks from a CSV file, reporting bad rows and adding the rest', async () => {
    const file = path.join(tmp, 'tasks.csv');
    fs.writeFileSync(file, 'typeId,instructions\n,"Triage ticket, first"\n,Triage ticket two\nno-such-type,Third\n');
    await vscode.commands.executeCommand(CommandIds.importTasks, PROJECT, vscode.Uri.file(file));
    const node = await until(async () => {
      const n = await projectNode();
      return n && n.project.stats.queuedTasks === 3 ? n : undefined;
    }, 'three queued tasks after the import (one row named an unknown type)');
    assert.equal(node.project.stats.totalTasks, 3);
    const labels = (await tasksIn('queued')).map((t) => api.deps.taskQueue.getTreeItem(t).label);
    assert.deepEqual(labels, ['Write the release notes', 'Triage ticket, first', 'Triage ticket two'], 'FIFO order, the quoted comma kept');
  });

  it('lets an agent take the oldest task through the queue server VS Code starts, with its lease shown', async () => {
    await until(
      async () => {
        // Bounded: with every server asked to start, VS Code may wait on one that never goes live.
        await Promise.race([
          vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true }).then(undefined, () => undefined),
          new Promise((resolve) => setTimeout(resolve, 5_000)),
        ]);
        return queueTool('request_task');
      },
      'the request_task tool from the Agent Progress queue server',
      90_000,
      500,
    );
    const registered = await invoke('register_agent', { projectId: PROJECT, agentName: 'copilot-itest' });
    assert.match(registered, /copilot-itest/);
    const answer = await invoke('request_task', { projectId: PROJECT });
    assert.match(answer, /Write the release notes/);

    const [running] = await until(async () => {
      const list = await tasksIn('running');
      return list.length === 1 ? list : undefined;
    }, 'the task under Running');
    const item = api.deps.taskQueue.getTreeItem(running!);
    assert.match(String(item.description), /^copilot-itest · [45]m \d+s left$/);
    assert.equal(item.contextValue, 'task-running');

    await api.deps.queueStatus.update();
    assert.equal(api.deps.queueStatus.visible, true);
    assert.equal(api.deps.queueStatus.item.text, '$(checklist) 1 running · 2 queued');
  });

  it('opens a task in its page and lets a person cancel it and requeue it, recorded in the audit log', async () => {
    const [task] = await tasksIn('queued');
    assert.ok(task);
    await vscode.commands.executeCommand(CommandIds.openTask, task);
    assert.deepEqual(api.deps.taskPanels.openIds, [task.task.id]);

    await vscode.commands.executeCommand(CommandIds.cancelTask, task, { confirmed: true });
    await until(async () => (await tasksIn('cancelled')).some((t) => t.task.id === task.task.id), 'the task under Cancelled');
    await vscode.commands.executeCommand(CommandIds.requeueTask, { taskId: task.task.id });
    await until(async () => (await tasksIn('queued')).some((t) => t.task.id === task.task.id), 'the task queued again');

    const audit = JSON.parse(await cli('get-audit-log', PROJECT, '--json')) as { events: { action: string; actor: string; taskId: string | null }[] };
    const mine = audit.events.filter((e) => e.taskId === task.task.id).map((e) => `${e.action} by ${e.actor}`);
    assert.ok(mine.includes('task_cancelled by operator:editor'), mine.join(', '));
    assert.ok(mine.includes('task_requeued by operator:editor'), mine.join(', '));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('hides the status bar item once the queue is empty', async () => {
    const agent = JSON.parse(await cli('list-tasks', PROJECT, '--json')) as { tasks: { id: string; status: string }[] };
    for (const t of agent.tasks.filter((t) => t.status === 'queued' || t.status === 'running')) await cli('cancel-task', t.id);
    await until(async () => {
      await api.deps.queueStatus.update();
      return !api.deps.queueStatus.visible;
    }, 'the status bar item hidden');
  });
});
