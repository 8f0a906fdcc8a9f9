// Inside a real VS Code: a review driven by another process (the built dist/server.js over stdio,
// through a real MCP client, as an agent would): the Review view and the status bar moving through
// the phases, agents with live durations, the JSON status file, an action approved through the
// command and the decision read back by the agent, a thread shown as a comment thread on its line,
// a reply and a resolve from the comment UI written to the ledger, and the export for CI.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as vscode from 'vscode';
import { CommandIds } from '../../src/extension/commandIds';
import type { AgentProgressApi } from '../../src/extension/extension';
import type { ReviewNode } from '../../src/extension/review/reviewItems';
import { EXTENSION_ID, until } from './util';

describe('Review in VS Code', function () {
  this.timeout(180_000);
  let api: AgentProgressApi;
  let workspace: string;
  let client: Client;
  let tmp: string;
  let reviewId: string;
  let threadId: string;

  async function agent<T = Record<string, unknown>>(name: string, args: Record<string, unknown>): Promise<T> {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assert.ok(!result.isError, `${name}: ${JSON.stringify(result.content)}`);
    return result.structuredContent as T;
  }

  /** The rows under the current run, by label. */
  async function rows(): Promise<{ label: string; description: string; node: ReviewNode }[]> {
    const provider = api.deps.review;
    const runs = (await provider.getChildren()) ?? [];
    const run = runs.find((n) => n.kind === 'run' && n.state.run.id === reviewId);
    if (!run) return [];
    const out: { label: string; description: string; node: ReviewNode }[] = [];
    const walk = async (node: ReviewNode): Promise<void> => {
      const item = provider.getTreeItem(node);
      out.push({ label: String(item.label), description: String(item.description ?? ''), node });
      for (const child of (await provider.getChildren(node)) ?? []) await walk(child);
    };
    await walk(run);
    return out;
  }

  async function row(label: string): Promise<{ label: string; description: string; node: ReviewNode } | undefined> {
    return (await rows()).find((r) => r.label === label);
  }

  function statusFile():
    | { review: { review_id: string; phase: string } | null; agents: { name: string; state: string; duration_ms: number | null }[]; actions: { pending: number; approved: number } }
    | undefined {
    try {
      return JSON.parse(fs.readFileSync(api.deps.reviewStatusFile.file, 'utf8'));
    } catch {
      return undefined;
    }
  }

  before(async () => {
    const extension = vscode.extensions.getExtension<AgentProgressApi>(EXTENSION_ID)!;
    api = await extension.activate();
    workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-review-itest-'));
    fs.mkdirSync(path.join(workspace, '.agent-progress', 'reviews'), { recursive: true });
    fs.writeFileSync(
      path.join(workspace, '.agent-progress', 'reviews', 'itest-review.yaml'),
      'title: Integration review\nagents:\n  - lint\n  - security\ncontext:\n  branch: feature/itest\n',
    );
    fs.mkdirSync(path.join(workspace, 'src'), { recursive: true });
    fs.writeFileSync(path.join(workspace, 'src', 'review-target.ts'), Array.from({ length: 20 }, (_, i) => `export const line${i + 1} = ${i + 1};`).join('\n') + '\n');
    // Another process: the built server, as an agent's MCP client starts it, on the window's ledger.
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('AGENT_PROGRESS_')) env[k] = v;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(extension.extensionPath, 'dist', 'server.js'), '--toolset', 'review'],
      env: { ...env, ELECTRON_RUN_AS_NODE: '1', AGENT_PROGRESS_DB_PATH: api.ledgerPath },
      cwd: workspace,
      stderr: 'ignore',
    });
    client = new Client({ name: 'itest-agent', version: '1.0.0' });
    await client.connect(transport);
    await vscode.commands.executeCommand('agentProgress.review.focus');
  });

  after(async () => {
    await client?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('shows the review an agent started, and moves through the phases as the agent calls the tools', async () => {
    const wf = await agent<{ review_id: string; started: boolean }>('get_workflow', { workflow: 'itest-review', new_run: true });
    assert.equal(wf.started, true);
    reviewId = wf.review_id;
    await until(async () => (await row('Phase: pending')) !== undefined, 'the new review in the Review view');
    const runRow = (await rows())[0]!;
    assert.equal(runRow.label, 'Integration review');
    assert.match(runRow.description, /^pending · feature\/itest · /);
    await until(() => api.deps.reviewStatus.visible && api.deps.reviewStatus.item.text.includes('Review: pending'), 'the status bar with the phase');

    await agent('set_phase', { phase: 'agents-running' });
    await until(async () => (await row('Phase: agents-running')) !== undefined, 'phase agents-running in the view');
    await until(() => api.deps.reviewStatus.item.text.includes('Review: agents-running'), 'agents-running in the status bar');

    await agent('start_agent', { agent: 'lint' });
    await until(async () => (await row('lint'))?.description.startsWith('running · '), 'lint running, with its duration');
    assert.equal(api.deps.review.ticking, true, 'durations count while an agent runs');
    assert.match(api.deps.reviewStatus.item.text, /agents-running · lint · 0\/2/);
    await until(() => statusFile()?.agents.find((a) => a.name === 'lint')?.state === 'running', 'the status file with lint running');
    assert.equal(statusFile()!.review!.review_id, reviewId);

    await agent('complete_agent', { agent: 'lint', summary: 'No lint errors.' });
    await until(async () => /^completed · \d+s$/.test((await row('lint'))?.description ?? ''), 'lint completed, with how long it took');
    await until(() => !api.deps.review.ticking, 'durations stop counting when no agent runs');
    assert.equal((await row('security'))!.description, 'pending');

    await agent('set_phase', { phase: 'synthesizing' });
    await until(async () => (await row('Phase: synthesizing')) !== undefined, 'phase synthesizing in the view');
    await until(() => statusFile()?.review?.phase === 'synthesizing', 'the status file at synthesizing');
  });

  it('shows a thread an agent opened as a comment thread on its line', async () => {
    const out = await agent<{ action: { thread_id: string } }>('add_action', {
      kind: 'open_thread',
      file: 'src/review-target.ts',
      line: 5,
      text: 'line5 should be a constant enum.',
      agent: 'security',
    });
    threadId = out.action.thread_id;
    const shown = await until(() => api.deps.reviewComments.threadFor(threadId), 'the comment thread');
    assert.equal(shown.uri.fsPath, path.join(workspace, 'src', 'review-target.ts'));
    assert.equal(shown.range?.start.line, 4, 'line 5 is range line 4');
    assert.equal(shown.comments.length, 1);
    assert.equal(shown.comments[0]!.author.name, 'security');
    assert.equal((shown.comments[0]!.body as vscode.MarkdownString).value, 'line5 should be a constant enum.');
    assert.equal(shown.state, vscode.CommentThreadState.Unresolved);
    assert.equal(shown.contextValue, 'reviewThread.open');
    await vscode.commands.executeCommand(CommandIds.openReviewThread, { threadId });
    await until(
      () => vscode.window.activeTextEditor?.document.uri.fsPath === shown.uri.fsPath && vscode.window.activeTextEditor.selection.start.line === 4,
      'the file open at the thread',
    );
  });

  it('writes a reply and a resolve from the comment UI to the ledger, where the agent reads them', async () => {
    const shown = api.deps.reviewComments.threadFor(threadId)!;
    await vscode.commands.executeCommand(CommandIds.replyReviewThread, { thread: shown, text: 'Agreed, will fix.' });
    const threads = await agent<{ threads: { thread_id: string; comments: { author: string; body: string }[] }[] }>('get_threads', {});
    const mine = threads.threads.find((t) => t.thread_id === threadId)!;
    assert.equal(mine.comments[1]!.body, 'Agreed, will fix.');
    assert.match(mine.comments[1]!.author, /^operator:editor/);
    await until(() => api.deps.reviewComments.threadFor(threadId)?.comments.length === 2, 'the reply in the comment thread');

    await vscode.commands.executeCommand(CommandIds.resolveReviewThread, shown);
    const all = await agent<{ threads: { thread_id: string; status: string; resolved_by: string }[] }>('get_threads', { status: 'all' });
    const resolved = all.threads.find((t) => t.thread_id === threadId)!;
    assert.equal(resolved.status, 'resolved');
    assert.match(resolved.resolved_by, /^operator:editor/);
    await until(() => api.deps.reviewComments.threadFor(threadId)?.state === vscode.CommentThreadState.Resolved, 'the comment thread resolved');
  });

  it('approves an action through the command; the agent reads who approved it and when', async () => {
    const queued = await agent<{ action: { action_id: string; status: string } }>('add_action', { kind: 'post_comment', text: 'Overall: one finding.', agent: 'security' });
    assert.equal(queued.action.status, 'pending');
    await until(
      async () => (await rows()).some((r) => r.node.kind === 'action' && r.node.action.id === queued.action.action_id && r.node.action.status === 'pending'),
      'the pending action in the approval queue',
    );
    const pendingRow = (await rows()).find((r) => r.node.kind === 'action' && r.node.action.id === queued.action.action_id)!;
    assert.equal(api.deps.review.getTreeItem(pendingRow.node).contextValue, 'reviewAction.pending');

    await vscode.commands.executeCommand(CommandIds.approveReviewAction, pendingRow.node);
    const wf = await agent<{ actions: { action_id: string; status: string; decided_by: string; decided_at: string }[] }>('get_workflow', { review_id: reviewId });
    const decided = wf.actions.find((a) => a.action_id === queued.action.action_id)!;
    assert.equal(decided.status, 'approved');
    assert.match(decided.decided_by, /^operator:editor/);
    assert.ok(Date.now() - Date.parse(decided.decided_at) < 60_000);
    await until(
      async () => (await rows()).find((r) => r.node.kind === 'action' && r.node.action.id === queued.action.action_id)?.description.includes('approved by operator:editor'),
      'the decision in the view',
    );
    await until(() => statusFile()?.actions.approved === 1, 'the status file counting the approval');

    const file = path.join(tmp, 'actions.json');
    const written = await vscode.commands.executeCommand<string>(CommandIds.exportReviewActions, { reviewId, file });
    assert.equal(written, file);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { review: { review_id: string }; actions: { action_id: string; status: string; kind: string }[] };
    assert.equal(doc.review.review_id, reviewId);
    assert.deepEqual(
      doc.actions.map((a) => [a.kind, a.status]),
      [
        ['open_thread', 'pending'],
        ['post_comment', 'approved'],
      ],
    );
  });

  it('writes a thread a person starts in the comment UI to the ledger, and shows it on its line', async () => {
    const uri = vscode.Uri.file(path.join(workspace, 'src', 'review-target.ts'));
    let draftDisposed = false;
    // What VS Code hands the command when a person writes a first comment on a new thread.
    const draft = { uri, range: new vscode.Range(9, 0, 9, 0), dispose: () => (draftDisposed = true) };
    const id = await vscode.commands.executeCommand<string>(CommandIds.addReviewThread, { thread: draft, text: 'Why is line 10 exported?' });
    assert.match(id, /^[a-z0-9]{12}$/);
    assert.equal(draftDisposed, true, "the draft thread is replaced by the ledger's");
    const threads = await agent<{ threads: { thread_id: string; file: string; line: number; created_by: string; comments: { body: string }[] }[] }>('get_threads', {
      file: 'src/review-target.ts',
    });
    const mine = threads.threads.find((t) => t.thread_id === id)!;
    assert.deepEqual([mine.file, mine.line, mine.comments[0]!.body], ['src/review-target.ts', 10, 'Why is line 10 exported?']);
    assert.match(mine.created_by, /^operator:editor/);
    const shown = await until(() => api.deps.reviewComments.threadFor(id), "the person's thread as a comment thread");
    assert.equal(shown.range?.start.line, 9);
  });

  it('ends at completed in the view, the status bar and the status file', async () => {
    await agent('set_phase', { phase: 'publishing' });
    await agent('set_phase', { phase: 'completed' });
    await until(async () => (await row('Phase: completed')) !== undefined, 'phase completed in the view');
    await until(() => api.deps.reviewStatus.item.text.includes('Review: completed'), 'completed in the status bar');
    await until(() => statusFile()?.review?.phase === 'completed', 'the status file at completed');
  });
});
