// WorkflowService on a real ledger: subtasks to any depth, the event log behind the timeline,
// running tasks and milestone progress, review requests, and the warnings of complete_task.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { initRepo } from '../../../helpers/gitRepo';
import { tempDir, useTempDirs } from '../../../helpers/tmp';
import { OUTCOME, openWorkflow, type WorkflowHarness } from '../../../helpers/workflow';
import { MAX_LISTED_PATH_CHARS } from '../../../../src/core/workflow/workflowService';

describe('WorkflowService', function () {
  this.timeout(60_000);
  useTempDirs();
  let h: WorkflowHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function harness(): Promise<{ h: WorkflowHarness; repo: ReturnType<typeof initRepo> }> {
    const dir = tempDir();
    const repo = initRepo(path.join(dir, 'shop'), { 'README.md': 'shop' });
    h = await openWorkflow(path.join(dir, 'ledger'), repo.dir);
    return { h, repo };
  }

  it('nests subtasks to any depth and lists parents before children', async () => {
    const { h } = await harness();
    const wf = await h.service.startWorkflow({ name: 'Deep', description: 'Nested work', plan: [{ step: '1', goal: 'Go deep' }] });
    assert.equal(wf.project_id, 'shop', 'the default project is the repository name');
    let parent: string | undefined;
    const ids: string[] = [];
    for (let depth = 0; depth < 12; depth++) {
      const t = await h.service.startTask({ workflow_id: wf.workflow_id, name: `Level ${depth}`, goal: 'g', ...(parent ? { parent_task_id: parent } : {}) });
      assert.equal(t.parent_task_id, parent ?? null);
      ids.push(t.task_id);
      parent = t.task_id;
    }
    const detail = await h.service.workflowDetail(wf.workflow_id);
    assert.deepEqual(
      detail.tasks.map((t) => t.id),
      ids,
    );
    assert.deepEqual(detail.workflow.plan, [{ step: '1', goal: 'Go deep' }]);
    // Completing the outer task first warns about the eleven still running below it.
    const out = await h.service.completeTask({ task_id: ids[0], status: 'partial_success', outcome: OUTCOME });
    assert.match(out.verification.warnings.join('\n'), /11 subtask\(s\) still in progress: "Level 1"/);
    await assert.rejects(
      h.service.startTask({ workflow_id: wf.workflow_id, parent_task_id: ids[0], name: 'late', goal: 'g' }),
      /is already completed \(partial_success\); start subtasks before completing their parent/,
    );
  });

  it('keeps one ordered event log per workflow: starts, decisions, issues, milestones, completions', async () => {
    const { h } = await harness();
    const wf = await h.service.startWorkflow({ name: 'Timeline' });
    const t = await h.service.startTask({ workflow_id: wf.workflow_id, name: 'Pick a validator', goal: 'g', areas: ['src'] });
    await h.service.logDecision({
      task_id: t.task_id,
      category: 'library_choice',
      question: 'Which validation library?',
      options_considered: ['Zod', 'Yup', 'Joi'],
      chosen: 'Zod',
      reasoning: 'Types.',
      trade_offs: 'Fewer plugins.',
    });
    await h.service.logIssue({ task_id: t.task_id, type: 'documentation_gap', description: 'Docs are stale', resolution: 'Read the source' });
    await h.service.logMilestone({ task_id: t.task_id, message: 'Installing...', progress: 25 });
    await h.service.logMilestone({ task_id: t.task_id, message: 'Running tests...', metadata: { suite: 'auth' } });
    const running = (await h.service.runningTasks()).find((r) => r.task.id === t.task_id)!;
    assert.equal(running.workflowName, 'Timeline');
    assert.equal(running.task.milestone, 'Running tests...');
    assert.equal(running.task.progress, 25, 'a milestone without progress keeps the last one');
    await h.service.completeTask({
      task_id: t.task_id,
      status: 'success',
      outcome: { summary: 'Zod it is.', achievements: ['Schemas'], limitations: [] },
      metadata: { tests_status: 'passed', packages_added: ['zod'] },
    });
    const { events, tasks } = await h.service.workflowDetail(wf.workflow_id);
    assert.deepEqual(
      events.map((e) => e.kind),
      ['workflow_started', 'task_started', 'decision', 'issue', 'milestone', 'milestone', 'task_completed'],
    );
    assert.ok(events.every((e, i) => i === 0 || e.seq > events[i - 1]!.seq));
    const decision = events.find((e) => e.kind === 'decision')!;
    assert.deepEqual(decision.data, {
      category: 'library_choice',
      question: 'Which validation library?',
      options_considered: ['Zod', 'Yup', 'Joi'],
      chosen: 'Zod',
      reasoning: 'Types.',
      trade_offs: 'Fewer plugins.',
    });
    assert.deepEqual(tasks[0]!.metadata, { tests_status: 'passed', packages_added: ['zod'] });
    assert.equal(tasks[0]!.status, 'success');
    assert.deepEqual(await h.service.runningTasks(), []);
  });

  it('lists review requests in order: issues that ask for one and outcomes that need one', async () => {
    const { h } = await harness();
    const wf = await h.service.startWorkflow({ name: 'Reviews' });
    const t = await h.service.startTask({ workflow_id: wf.workflow_id, name: 'Risky change', goal: 'g' });
    const seq0 = await h.service.latestEventSeq();
    await h.service.logIssue({
      task_id: t.task_id,
      type: 'bug_encountered',
      description: 'Patched a library bug locally',
      resolution: 'Monkey patch',
      requires_human_review: true,
    });
    await h.service.logIssue({ task_id: t.task_id, type: 'other', description: 'Minor', resolution: 'Fixed' });
    await h.service.completeTask({
      task_id: t.task_id,
      status: 'partial_success',
      outcome: { summary: 'Mostly done', manual_review_needed: true, manual_review_reason: 'Check the patch before release' },
    });
    const requests = await h.service.reviewRequests(seq0);
    assert.deepEqual(
      requests.map((r) => [r.kind, r.taskName, r.workflowName, r.text]),
      [
        ['issue', 'Risky change', 'Reviews', 'Patched a library bug locally'],
        ['task_completed', 'Risky change', 'Reviews', 'Check the patch before release'],
      ],
    );
    assert.deepEqual(await h.service.reviewRequests(requests[1]!.seq), []);
  });

  it('refuses events on a completed task and a second completion, changing nothing', async () => {
    const { h } = await harness();
    const wf = await h.service.startWorkflow({ name: 'Once' });
    const t = await h.service.startTask({ workflow_id: wf.workflow_id, name: 'Done quickly', goal: 'g' });
    await h.service.completeTask({ task_id: t.task_id, status: 'success', outcome: OUTCOME });
    const before = await h.service.workflowDetail(wf.workflow_id);
    await assert.rejects(
      h.service.completeTask({ task_id: t.task_id, status: 'failed', outcome: OUTCOME }),
      (err: Error & { code?: string }) => err.code === 'conflict' && /already completed \(success\)/.test(err.message),
    );
    await assert.rejects(h.service.logMilestone({ task_id: t.task_id, message: 'late' }), /already completed \(success\) at .*; start a new task with start_task/);
    assert.deepEqual(await h.service.workflowDetail(wf.workflow_id), before);
  });

  it('warns when another task changed the same repository at the same time, but not about its own subtasks', async () => {
    const { h, repo } = await harness();
    const wf = await h.service.startWorkflow({ name: 'Parallel agents' });
    const mine = await h.service.startTask({ workflow_id: wf.workflow_id, name: 'Mine', goal: 'g' });
    const sub = await h.service.startTask({ workflow_id: wf.workflow_id, parent_task_id: mine.task_id, name: 'My subtask', goal: 'g' });
    repo.write('sub.txt', 's');
    await h.service.completeTask({ task_id: sub.task_id, status: 'success', outcome: OUTCOME });
    const other = await h.service.startTask({ workflow_id: wf.workflow_id, name: 'Another agent', goal: 'g' });
    repo.write('theirs.txt', 'x');
    const out = await h.service.completeTask({ task_id: mine.task_id, status: 'success', outcome: OUTCOME });
    const overlap = out.verification.warnings.filter((w) => w.startsWith('Another task ran'));
    assert.equal(overlap.length, 1);
    assert.match(overlap[0]!, new RegExp(`"Another agent" ${other.task_id}\\): files it changed are counted here too\\.$`));
    assert.doesNotMatch(overlap[0]!, /My subtask/);
  });

  it('names a workflow id given as a task id, and the other way round', async () => {
    const { h } = await harness();
    const wf = await h.service.startWorkflow({ name: 'Ids' });
    const t = await h.service.startTask({ workflow_id: wf.workflow_id, name: 'n', goal: 'g' });
    await assert.rejects(h.service.logIssue({ task_id: wf.workflow_id, type: 'other', description: 'd', resolution: 'r' }), (err: Error) =>
      new RegExp(`^${wf.workflow_id} is a workflow id, not a task id\\. Start a task in it with start_task`).test(err.message),
    );
    await assert.rejects(
      h.service.startTask({ workflow_id: t.task_id, name: 'n', goal: 'g' }),
      new RegExp(`${t.task_id} is a task id, not a workflow id: its workflow is ${wf.workflow_id}`),
    );
    assert.equal(await h.service.identify(wf.workflow_id), 'workflow');
    assert.equal(await h.service.identify(t.task_id), 'task');
    assert.equal(await h.service.identify('nothing'), undefined);
  });

  it('lists workflows newest activity first with task counts', async () => {
    const { h } = await harness();
    const a = await h.service.startWorkflow({ name: 'A' });
    const b = await h.service.startWorkflow({ name: 'B', project_id: 'other-project' });
    const t = await h.service.startTask({ workflow_id: a.workflow_id, name: 'n', goal: 'g' });
    await h.service.startTask({ workflow_id: a.workflow_id, name: 'n2', goal: 'g' });
    await h.service.completeTask({ task_id: t.task_id, status: 'failed', outcome: OUTCOME });
    const { workflows, total } = await h.service.listWorkflows();
    assert.equal(total, 2);
    assert.deepEqual(
      workflows.map((w) => [w.name, w.taskCount, w.running, w.failed]),
      [
        ['A', 2, 1, 1],
        ['B', 0, 0, 0],
      ],
    );
    assert.deepEqual(
      (await h.service.listWorkflows({ projectId: 'other-project' })).workflows.map((w) => w.id),
      [b.workflow_id],
    );
    assert.deepEqual((await h.service.listProjects()).map((p) => p.projectId).sort(), ['other-project', 'shop']);
  });

  it('lists the changed files that fit its answer (at most 1,000, and 8,000 characters of paths) and keeps every one in the ledger', async () => {
    const { h, repo } = await harness();
    const wf = await h.service.startWorkflow({ name: 'Vendoring' });
    const t = await h.service.startTask({ workflow_id: wf.workflow_id, name: 'Vendor a library', goal: 'g', areas: ['vendor'] });
    for (let i = 0; i < 1_200; i++) repo.write(`vendor/lib/f${String(i).padStart(4, '0')}.js`, `module.exports = ${i};\n`);
    repo.write('README.md', 'shop, with a vendored library');
    const out = await h.service.completeTask({ task_id: t.task_id, status: 'success', outcome: OUTCOME });
    const listed = out.files_changed.added.length + out.files_changed.modified.length;
    const chars = [...out.files_changed.added, ...out.files_changed.modified].reduce((n, p) => n + p.length + 4, 0);
    assert.ok(listed <= 1_000 && listed >= 250 && chars <= MAX_LISTED_PATH_CHARS, `${listed} files, ${chars} characters`);
    assert.match(
      out.verification.warnings.join('\n'),
      new RegExp(`\\d+ of 1201 changed files are left out of this answer; all are recorded \\(agent-progress tracked-task ${t.task_id} lists them\\)\\.`),
    );
    const stored = await h.service.task(t.task_id);
    assert.equal(stored.filesChanged!.added.length, 1_200);
    assert.deepEqual(stored.filesChanged!.modified, ['README.md']);
    assert.deepEqual(stored.verification!.unexpected_files, ['README.md']);
  });
});
