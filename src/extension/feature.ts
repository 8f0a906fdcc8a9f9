// What a feature is: a folder under src/extension/ (progressLog, queue, workflows, sessions, review,
// ledger, setup) whose feature.ts activates it from the Shared parts: it makes its parts (view,
// status item, pages), whose types are its deps, and lists its commands in a table by their
// CommandIds name (the function of that name makes the handler from the feature's deps).
// extension.ts lists the features.

import * as vscode from 'vscode';
import type { Logger } from '../core/log';
import type { ApiKeyStore } from './apiKey';
import { CommandIds, type CommandId } from './commandIds';
import { Disposable, type DisposableLike } from './disposable';
import type { LedgerConnection } from './ledgerConnection';
import type { TraceHost } from './traceHost';

/** What every feature may use: made once in activate(). */
export interface Shared {
  context: vscode.ExtensionContext;
  logger: Logger;
  output: vscode.LogOutputChannel;
  host: LedgerConnection;
  apiKeys: ApiKeyStore;
  traces: TraceHost;
}

/** A command's handler, as VS Code calls it (arguments from a menu, a tree item or executeCommand). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- VS Code passes whatever the caller gave
export type CommandHandler = (...args: any[]) => unknown;

/** Keeps something until the feature is disposed (a command's document provider, its emitter). */
export type Own = <T extends DisposableLike>(owned: T) => T;

/** One line of a feature's command table: the id, and what makes its handler from the deps. */
export type CommandLine<D> = readonly [CommandId, (deps: D, own: Own) => CommandHandler];

/** A feature's commands: the CommandIds name of each, and the function that makes its handler. */
export type CommandTable<D> = Partial<Record<keyof typeof CommandIds, (deps: D, own: Own) => CommandHandler>>;

/** What a feature registers: its table, or lines of any ids (a test's throwaway command). */
export type Commands<D> = CommandTable<D> | readonly CommandLine<D>[];

/** The commands as lines: each command's id and maker. */
function commandLines<D>(commands: Commands<D>): readonly CommandLine<D>[] {
  if (Array.isArray(commands)) return commands as readonly CommandLine<D>[];
  return Object.entries(commands as CommandTable<D>).map(([name, make]) => [CommandIds[name as keyof typeof CommandIds], make!]);
}

/** An active feature: disposing it releases its commands, views, status items and pages. */
export class Feature<D> extends Disposable {
  constructor(
    /** The feature's parts (tests inside VS Code look at them through activate()'s result). */
    readonly deps: D,
    commands: Commands<D>,
    owned: readonly DisposableLike[] = [],
  ) {
    super();
    for (const d of owned) this.register(d);
    const own: Own = (d) => this.register(d);
    for (const [id, make] of commandLines(commands)) this.register(vscode.commands.registerCommand(id, make(deps, own)));
  }

  /** A feature that owns its parts (released with it, newest first) and more (subscriptions); its deps are the shared ones and the parts. */
  static owning<P extends Record<string, DisposableLike>>(shared: Shared, parts: P, commands: Commands<Shared & P>, more: readonly DisposableLike[] = []): Feature<Shared & P> {
    return new Feature({ ...shared, ...parts }, commands, [...Object.values(parts), ...more]);
  }
}
