// CLI commands of review runs, so a CI script can drive a review: review-definitions,
// review-start, review-status, review-decide and review-export (the decided actions as JSON, for
// the script to carry out). Thin wrappers over ReviewService.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as ReviewServiceModule from '../core/review/reviewService';

/** The review service's module, loaded with the service (ARCHITECTURE.md, "Bundles and the start path"). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when the command runs
const reviewModule = (): typeof ReviewServiceModule => require('../core/review/reviewService') as typeof ReviewServiceModule;
import type { ReviewService } from '../core/review/reviewService';
import type { ActionStatus, ReviewRun } from '../core/review/types';
import { flagSet, flagValue, parseArgv, UsageError } from './args';
import type { Command } from './command';

const GROUP = 'Review';

function seconds(ms: number | null): string {
  return ms === null ? '' : ` ${(ms / 1000).toFixed(1)}s`;
}

/** The run named, else the latest in this project (running first). */
async function chooseRun(service: ReviewService, id: string | undefined): Promise<ReviewRun> {
  if (id !== undefined) return service.resolveRun(id);
  const [active] = await service.listRuns({ projectId: service.projectId, active: true, limit: 1 });
  if (active) return active;
  const [latest] = await service.listRuns({ projectId: service.projectId, limit: 1 });
  if (!latest) throw new UsageError(`No review in project ${service.projectId} yet; start one with agent-progress review-start`);
  return latest;
}

function onePositional(positionals: string[]): string | undefined {
  if (positionals.length > 1) throw new UsageError(`Unexpected argument "${positionals[1]}"`);
  return positionals[0];
}

function operator(p: ReturnType<typeof parseArgv>): string {
  const by = flagValue(p, 'by');
  if (by !== undefined && by.trim() !== '') return by.trim();
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // no user name on this system
  }
  return `operator:cli (${user})`;
}

const definitionsCommand: Command = {
  name: 'review-definitions',
  group: GROUP,
  summary: 'list the review definitions of the workspace',
  usage: `Usage: agent-progress review-definitions [--json]

Lists the review definitions in .agent-progress/reviews/ (JSON or YAML) of the workspace
(AGENT_PROGRESS_WORKSPACE, else the working directory), and why any file is refused.`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { json: {} });
    if (p.positionals.length > 0) throw new UsageError(`Unexpected argument "${p.positionals[0]}"`);
    const listing = (await ctx.services.review()).definitions();
    if (flagSet(p, 'json')) {
      ctx.out.json(listing);
      return;
    }
    if (listing.definitions.length === 0 && listing.errors.length === 0) ctx.out.line('No review definitions in .agent-progress/reviews/.');
    for (const d of listing.definitions) ctx.out.line(`${d.name}  ${d.title ?? ''}  agents: ${d.agents.map((a) => a.name).join(', ')}  (${d.source})`);
    for (const e of listing.errors) ctx.out.line(`refused ${e.file}: ${e.message}`);
  },
};

const startCommand: Command = {
  name: 'review-start',
  group: GROUP,
  summary: 'start a review run from a definition',
  usage: `Usage: agent-progress review-start [--workflow NAME] [--branch B] [--merge-request REF] [--notes TEXT] [--json]

Starts a review from .agent-progress/reviews/NAME.(json|yaml); without --workflow, the only
definition or the one named "default". Agents then find it with get_workflow. Prints its id.`,
  async run(argv, ctx) {
    const p = parseArgv(argv, {
      workflow: { value: true, alias: 'w' },
      branch: { value: true },
      'merge-request': { value: true },
      notes: { value: true },
      by: { value: true },
      json: {},
    });
    if (p.positionals.length > 0) throw new UsageError(`Unexpected argument "${p.positionals[0]}"`);
    const service = await ctx.services.review();
    const branch = flagValue(p, 'branch');
    const mr = flagValue(p, 'merge-request');
    const notes = flagValue(p, 'notes');
    const run = await service.startRun({
      workflow: flagValue(p, 'workflow'),
      context: { ...(branch !== undefined ? { branch } : {}), ...(mr !== undefined ? { merge_request: mr } : {}), ...(notes !== undefined ? { notes } : {}) },
      startedBy: operator(p),
    });
    if (flagSet(p, 'json')) {
      ctx.out.json(reviewModule().statusDocument(await service.state(run.id), new Date()));
      return;
    }
    ctx.out.line(`${run.id}  started ${run.workflow} in project ${run.projectId}: ${run.definition.agents.map((a) => a.name).join(', ')}`);
  },
};

const statusCommand: Command = {
  name: 'review-status',
  group: GROUP,
  summary: 'show a review run: phase, agents, actions',
  usage: `Usage: agent-progress review-status [ID] [--json]

Shows the review (default: the latest running one in this project, else the latest): its phase,
each agent with its state and duration, and its actions with their decisions. --json prints the
same document as the status file VS Code keeps.`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { json: {} });
    const service = await ctx.services.review();
    const run = await chooseRun(service, onePositional(p.positionals));
    const state = await service.state(run.id);
    const { statusDocument } = reviewModule();
    if (flagSet(p, 'json')) {
      ctx.out.json({
        ...statusDocument(state, new Date()),
        action_list: state.actions.map((a) => ({ action_id: a.id, kind: a.kind, status: a.status, decided_by: a.decidedBy, text: a.text })),
      });
      return;
    }
    ctx.out.line(`${run.id}  ${run.workflow}  phase: ${run.phase}  (project ${run.projectId}, started ${run.createdAt})`);
    const doc = statusDocument(state, new Date());
    for (const a of doc.agents) ctx.out.line(`  ${a.state.padEnd(9)} ${a.name}${seconds(a.duration_ms)}${a.anomalies.length ? `  [${a.anomalies.join('; ')}]` : ''}`);
    for (const a of state.actions) ctx.out.line(`  action ${a.id}  ${a.kind}  ${a.status}${a.decidedBy ? ` by ${a.decidedBy}` : ''}: ${a.text.split('\n')[0]!.slice(0, 80)}`);
    ctx.out.line(`  threads: ${doc.threads.open} open, ${doc.threads.resolved} resolved`);
  },
};

const decideCommand: Command = {
  name: 'review-decide',
  group: GROUP,
  summary: 'approve or dismiss a queued review action',
  usage: `Usage: agent-progress review-decide ACTION_ID approve|dismiss [--note TEXT] [--by NAME]

Records a person's decision on an action an agent queued (as the Review view does). --by names
who (default: operator:cli and the OS user name).`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { note: { value: true }, by: { value: true }, json: {} });
    const [id, decision, extra] = p.positionals;
    if (!id || !decision) throw new UsageError('Give the action id and approve or dismiss (agent-progress review-status lists the actions)');
    if (extra !== undefined) throw new UsageError(`Unexpected argument "${extra}"`);
    if (decision !== 'approve' && decision !== 'dismiss') throw new UsageError(`The decision must be approve or dismiss, got "${decision}"`);
    const action = await (await ctx.services.review()).decideAction(id, decision, operator(p), flagValue(p, 'note'));
    if (flagSet(p, 'json')) ctx.out.json(action);
    else ctx.out.line(`${action.id} ${action.status} by ${action.decidedBy} at ${action.decidedAt}`);
  },
};

const exportCommand: Command = {
  name: 'review-export',
  group: GROUP,
  summary: "export a review's actions and decisions as JSON",
  usage: `Usage: agent-progress review-export [ID] [--status pending|approved|dismissed] [--out FILE]

Prints (or writes to FILE) the review's actions with their decisions as JSON, for a CI script to
carry out (post the approved comments, resolve the threads). Default: the latest review.`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { status: { value: true }, out: { value: true, alias: 'o' } });
    const status = flagValue(p, 'status');
    if (status !== undefined && !['pending', 'approved', 'dismissed'].includes(status)) throw new UsageError(`--status must be pending, approved or dismissed, got "${status}"`);
    const service = await ctx.services.review();
    const run = await chooseRun(service, onePositional(p.positionals));
    const doc = await service.exportActions(run.id, status as ActionStatus | undefined);
    const out = flagValue(p, 'out');
    if (out === undefined) {
      ctx.out.json(doc);
      return;
    }
    const file = path.resolve(ctx.cwd, out);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(doc, null, 2) + '\n');
    fs.renameSync(tmp, file);
    ctx.out.line(`Wrote ${doc.actions.length} action(s) of review ${run.id} to ${file}`);
  },
};

export const REVIEW_COMMANDS: readonly Command[] = [definitionsCommand, startCommand, statusCommand, decideCommand, exportCommand];
