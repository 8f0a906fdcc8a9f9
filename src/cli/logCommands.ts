// CLI commands of the progress log: log, search, show, projects. Thin wrappers over
// ProgressService; the same validation and messages as the MCP tools.

import { isLedgerError } from '../core/errors';
import { defaultProjectId } from '../core/projectId';
import { readRegularTextSync } from '../core/regularFile';
import { flagSet, flagValue, flagValues, parseArgv, UsageError, type Parsed } from './args';
import type { Command, CommandContext } from './command';

function project(p: Parsed, ctx: CommandContext): string {
  return flagValue(p, 'project') ?? defaultProjectId(ctx.cwd);
}

function json(p: Parsed): boolean {
  return flagSet(p, 'json');
}

const logCommand: Command = {
  name: 'log',
  summary: 'record a progress entry',
  terms: { projectId: '--project', title: '--title', content: '--content', tags: '--tag', agentId: '--agent' },
  usage: `Usage: agent-progress log --title TITLE [--content TEXT | --content-file FILE | --content -] [options]

Records what was done in the project's progress log (like the log_progress tool).
Content is read from standard input when it is piped and --content is not given.

Options:
  --project ID        project (default: the repository's folder name)
  --title TEXT        short title, at most 100 characters (required)
  --content TEXT      what was done and how, at most 10,000 characters ("-" reads stdin)
  --content-file FILE read the content from a file
  --tag TAG           a tag; repeat for several (at most 10)
  --agent NAME        who did it
  --json              print the result as JSON`,
  async run(argv, ctx) {
    const p = parseArgv(argv, {
      project: { value: true, alias: 'p' },
      title: { value: true, alias: 't' },
      content: { value: true, alias: 'c' },
      'content-file': { value: true },
      tag: { value: true, repeat: true },
      agent: { value: true },
      json: {},
    });
    if (p.positionals.length > 0) throw new UsageError(`Unexpected argument "${p.positionals[0]}"`);
    let content = flagValue(p, 'content');
    const file = flagValue(p, 'content-file');
    if (content !== undefined && file !== undefined) throw new UsageError('Give --content or --content-file, not both');
    if (file !== undefined) {
      try {
        content = readRegularTextSync(file, { maxBytes: 16 << 20, what: '--content-file' });
      } catch (err) {
        if (isLedgerError(err)) throw err;
        throw new UsageError(`Cannot read --content-file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
      }
    } else if (content === '-' || (content === undefined && !ctx.stdinIsTty)) {
      content = await ctx.readStdin();
    }
    const service = await ctx.services.progress();
    const tags = flagValues(p, 'tag');
    const out = await service.logProgress({
      projectId: project(p, ctx),
      title: flagValue(p, 'title'),
      content,
      ...(tags.length > 0 ? { tags } : {}),
      ...(flagValue(p, 'agent') !== undefined ? { agentId: flagValue(p, 'agent') } : {}),
    });
    if (json(p)) ctx.out.json(out);
    else ctx.out.line(`Logged ${out.id} in ${out.projectId}: ${out.title}`);
  },
};

const searchCommand: Command = {
  name: 'search',
  summary: 'find entries by title, tags, dates or full text',
  terms: { projectId: '--project', query: 'QUERY', text: '--text', tags: '--tag', startDate: '--since', endDate: '--until', limit: '--limit' },
  usage: `Usage: agent-progress search [QUERY] [options]

Lists entries newest first (like the search_logs tool). QUERY matches titles, case-insensitively.

Options:
  --project ID   project (default: the repository's folder name)
  --text WORDS   full-text search over titles and content, ranked by relevance
  --tag TAG      only entries with this tag; repeat: entries must have all
  --since DATE   on or after this ISO 8601 date or date-time
  --until DATE   on or before (a date alone includes the whole day)
  --limit N      at most N results, 1-100 (default 20)
  --json         print the result as JSON`,
  async run(argv, ctx) {
    const p = parseArgv(argv, {
      project: { value: true, alias: 'p' },
      query: { value: true, alias: 'q' },
      text: { value: true },
      tag: { value: true, repeat: true },
      since: { value: true },
      until: { value: true },
      limit: { value: true, alias: 'n' },
      json: {},
    });
    if (p.positionals.length > 1) throw new UsageError('Give the title query as one argument (quote it)');
    const query = flagValue(p, 'query') ?? p.positionals[0];
    const rawLimit = flagValue(p, 'limit');
    const limit = rawLimit === undefined ? undefined : Number(rawLimit);
    if (rawLimit !== undefined && (rawLimit.trim() === '' || Number.isNaN(limit))) throw new UsageError(`--limit must be a number, got "${rawLimit}"`);
    const tags = flagValues(p, 'tag');
    const projectId = project(p, ctx);
    const service = await ctx.services.progress();
    const result = await service.searchLogs({
      projectId,
      ...(query !== undefined ? { query } : {}),
      ...(flagValue(p, 'text') !== undefined ? { text: flagValue(p, 'text') } : {}),
      ...(tags.length > 0 ? { tags } : {}),
      ...(flagValue(p, 'since') !== undefined ? { startDate: flagValue(p, 'since') } : {}),
      ...(flagValue(p, 'until') !== undefined ? { endDate: flagValue(p, 'until') } : {}),
      ...(limit !== undefined ? { limit } : {}),
    });
    if (json(p)) {
      ctx.out.json({ projectId, entries: result.listings, total: result.total });
      return;
    }
    if (result.total === 0) {
      ctx.out.line(`No entries found in ${projectId}.`);
      return;
    }
    for (const e of result.listings) {
      const tags = e.tags.length > 0 ? `  [${e.tags.join(', ')}]` : '';
      const agent = e.agentId ? `  (${e.agentId})` : '';
      ctx.out.line(`${e.id}  ${e.createdAt.slice(0, 16).replace('T', ' ')}  ${e.title}${tags}${agent}`);
    }
    ctx.out.line(`${result.listings.length} of ${result.total} ${result.total === 1 ? 'entry' : 'entries'} in ${projectId}`);
  },
};

const showCommand: Command = {
  name: 'show',
  summary: 'print one entry in full',
  terms: { projectId: '--project', id: 'ID' },
  usage: `Usage: agent-progress show ID [options]

Prints an entry: title, project, time, agent, tags, cached summary and full content.

Options:
  --project ID   look only in this project
  --summarise    write the summary now if none is cached (like get_context)
  --json         print the entry as JSON`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { project: { value: true, alias: 'p' }, summarise: { alias: 'summarize' }, json: {} });
    const [id, extra] = p.positionals;
    if (!id) throw new UsageError('Give the id of the entry to show');
    if (extra !== undefined) throw new UsageError(`Unexpected argument "${extra}"`);
    const service = await ctx.services.progress();
    const entry = await service.showEntry(id, flagValue(p, 'project'));
    let summary = entry.summary;
    let source = entry.summarySource;
    if (flagSet(p, 'summarise') && summary === null) {
      const got = await service.getContext({ projectId: entry.projectId, id: entry.id });
      summary = got.summary;
      source = got.summarySource ?? null;
    }
    if (json(p)) {
      ctx.out.json({ ...entry, summary, summarySource: source });
      return;
    }
    ctx.out.line(entry.title);
    ctx.out.line(`id: ${entry.id}   project: ${entry.projectId}   created: ${entry.createdAt}${entry.agentId ? `   agent: ${entry.agentId}` : ''}`);
    if (entry.tags.length > 0) ctx.out.line(`tags: ${entry.tags.join(', ')}`);
    if (summary !== null) ctx.out.line(`summary (${source ?? 'cached'}): ${summary}`);
    ctx.out.line('');
    ctx.out.line(entry.content);
  },
};

const projectsCommand: Command = {
  name: 'projects',
  summary: 'list the projects in the ledger',
  usage: `Usage: agent-progress projects [--json]

Lists every project with its number of entries and the time of the latest.`,
  async run(argv, ctx) {
    const p = parseArgv(argv, { json: {} });
    if (p.positionals.length > 0) throw new UsageError(`Unexpected argument "${p.positionals[0]}"`);
    const service = await ctx.services.progress();
    const projects = await service.listProjects();
    if (json(p)) {
      ctx.out.json({ projects });
      return;
    }
    if (projects.length === 0) ctx.out.line('No projects yet: the first log creates one.');
    for (const pr of projects) ctx.out.line(`${pr.projectId}  ${pr.entryCount} ${pr.entryCount === 1 ? 'entry' : 'entries'}${pr.lastEntryAt ? `, latest ${pr.lastEntryAt}` : ''}`);
  },
};

export const LOG_COMMANDS: readonly Command[] = [logCommand, searchCommand, showCommand, projectsCommand].map((c) => ({ ...c, group: 'Progress log' }));
