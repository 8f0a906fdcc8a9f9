// The one webview page registry: a page kind (entry, task, workflow, session) is a PageConfig, and
// Pages does the life cycle they share: one panel per item, opened or revealed; HTML with a nonce
// and a strict CSP; the ready handshake; messages parsed with the page's zod schema; a reload when
// the source changes (unless the page is busy); a "missing" message when the item is gone; and a
// WebviewPanelSerializer, so a page open when the window reloads opens again with the same item.

import * as vscode from 'vscode';
import { isLedgerError } from '../../core/errors';
import type { Logger } from '../../core/log';
import type { PageState, PageStateMessage } from '../../shared/pageProtocol';
import { Disposable } from '../disposable';
import { webviewHtml, webviewOptions } from './webviewHtml';

/** One open page: its panel, the model it shows, and what the page config keeps per panel. */
export interface OpenPage<M> {
  readonly key: string;
  readonly panel: vscode.WebviewPanel;
  model: M | undefined;
  /** Set while an action runs: live reloads wait, the page shows it. */
  busy: boolean;
  error: string | undefined;
  /** What to scroll to on the next post (a task, an event); a live reload clears it. */
  focus: string | number | undefined;
}

type Parsed<T> = { success: true; data: T } | { success: false };

export interface PageConfig<M, ToPage, FromPage extends { type: string }> {
  /** The panel's view type; package.json activates on `onWebviewPanel:<viewType>`. */
  viewType: string;
  /** dist/webview/<name>.js and media/<name>.css; also the noun in messages ("the entry view of"). */
  name: string;
  /** Fires when what the pages show may have changed (the ledger, the transcripts). */
  onDidChange: vscode.Event<void>;
  /** The model of an item; `hint` helps find it (an entry's project). Throws when there is none. */
  load(key: string, hint: string | undefined): Promise<M>;
  /** The item's canonical key (a prefix or an alias opens the item under its own id). */
  keyOf(model: M): string;
  /** What a reload passes to load() again. */
  hintOf?(model: M): string | undefined;
  title(model: M): string;
  /** The page's main message. */
  render(page: OpenPage<M>): ToPage;
  /** The message for an item no longer there, or undefined to keep the page as it is. */
  missing(key: string, err: unknown): ToPage | undefined;
  /** The page's own messages (everything but `ready`), checked by `parse`. */
  parse(raw: unknown): Parsed<FromPage>;
  handle(page: OpenPage<M>, message: Exclude<FromPage, { type: 'ready' }>): Promise<void>;
  /** What a reload makes of the fresh model (default: takes it). */
  merge?(previous: M | undefined, fresh: M): M;
  /** Held while a page is open (a transcript watch). */
  whileOpen?(): vscode.Disposable;
  /** The refusal shown when an item cannot be opened. */
  openError?(key: string, err: unknown): string;
}

/** The state VS Code hands back on restore, checked: it comes from the webview. */
export function parsePageState(raw: unknown): PageState | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const { key, hint } = raw as { key?: unknown; hint?: unknown };
  if (typeof key !== 'string' || key.trim() === '' || key.length > 500) return undefined;
  if (hint !== undefined && (typeof hint !== 'string' || hint.length > 500)) return undefined;
  return hint === undefined ? { key } : { key, hint };
}

export interface ShowOptions {
  hint?: string;
  focus?: string | number;
  beside?: boolean;
}

export class Pages<M, ToPage, FromPage extends { type: string }> extends Disposable {
  private readonly open = new Map<string, OpenPage<M>>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly logger: Logger,
    readonly config: PageConfig<M, ToPage, FromPage>,
  ) {
    super();
    this.register(() => {
      for (const page of [...this.open.values()]) page.panel.dispose();
      this.open.clear();
    });
    this.register(
      config.onDidChange(() => {
        for (const page of this.open.values()) if (!page.busy) void this.reload(page);
      }),
    );
    this.register(vscode.window.registerWebviewPanelSerializer(config.viewType, { deserializeWebviewPanel: (panel, state) => this.restore(panel, state) }));
  }

  /** The pages open now, by key (tests look at them). */
  get openIds(): string[] {
    return [...this.open.keys()];
  }

  /** The model a page shows now (tests look at it). */
  pageOf(key: string): M | undefined {
    return this.open.get(key)?.model;
  }

  /** Opens the item's page, or reveals it; undefined (after a message) when it cannot be loaded. */
  async show(key: string, options: ShowOptions = {}): Promise<OpenPage<M> | undefined> {
    let model: M;
    try {
      model = await this.config.load(key, options.hint);
    } catch (err) {
      void vscode.window.showErrorMessage(this.config.openError?.(key, err) ?? (isLedgerError(err) ? err.message : `Could not open ${this.config.name} ${key}: ${String(err)}`));
      return undefined;
    }
    const id = this.config.keyOf(model);
    let page = this.open.get(id);
    if (page) {
      page.panel.reveal();
    } else {
      const panel = vscode.window.createWebviewPanel(
        this.config.viewType,
        this.config.title(model),
        options.beside ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active,
        webviewOptions(this.extensionUri),
      );
      page = this.adopt(id, panel);
    }
    page.model = model;
    page.focus = options.focus;
    this.post(page);
    return page;
  }

  /** Posts the page's message again (after an action changed its state). */
  post(page: OpenPage<M>): void {
    if (page.model === undefined) return;
    page.panel.title = this.config.title(page.model);
    void page.panel.webview.postMessage(this.config.render(page));
  }

  /** Runs an action with the page busy, its error cleared before and set from a failure. */
  async busyWith(page: OpenPage<M>, action: () => Promise<void>): Promise<void> {
    if (page.busy) return;
    page.busy = true;
    page.error = undefined;
    this.post(page);
    try {
      await action();
    } catch (err) {
      page.error = isLedgerError(err) ? err.message : String(err);
    } finally {
      page.busy = false;
      this.post(page);
    }
  }

  /** The serializer's half: a page VS Code kept across a window reload opens its item again. */
  async restore(panel: vscode.WebviewPanel, raw: unknown): Promise<void> {
    const state = parsePageState(raw);
    if (!state || this.open.has(state.key)) {
      panel.dispose();
      return;
    }
    panel.webview.options = webviewOptions(this.extensionUri);
    const page = this.adopt(state.key, panel, state.hint);
    try {
      page.model = await this.config.load(state.key, state.hint);
      this.post(page);
    } catch (err) {
      this.logger.warn(`Could not restore the ${this.config.name} page of ${state.key}: ${err instanceof Error ? err.message : String(err)}`);
      const missing = this.config.missing(state.key, err);
      if (missing !== undefined) void panel.webview.postMessage(missing);
    }
  }

  private adopt(key: string, panel: vscode.WebviewPanel, hint?: string): OpenPage<M> {
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.svg');
    panel.webview.html = webviewHtml({
      webview: panel.webview,
      extensionUri: this.extensionUri,
      title: panel.title,
      script: ['dist', 'webview', `${this.config.name}.js`],
      styles: [['media', `${this.config.name}.css`]],
    });
    const page: OpenPage<M> = { key, panel, model: undefined, busy: false, error: undefined, focus: undefined };
    this.open.set(key, page);
    const held = this.config.whileOpen?.();
    panel.onDidDispose(() => {
      held?.dispose();
      if (this.open.get(key) === page) this.open.delete(key);
    });
    panel.webview.onDidReceiveMessage((raw: unknown) => this.onMessage(page, raw, hint));
    return page;
  }

  private async onMessage(page: OpenPage<M>, raw: unknown, restoredHint: string | undefined): Promise<void> {
    const parsed = this.config.parse(raw);
    if (!parsed.success) {
      this.logger.warn(`Ignored a malformed message from the ${this.config.name} view of ${page.key}`);
      return;
    }
    if (parsed.data.type === 'ready') {
      const hint = page.model !== undefined ? this.config.hintOf?.(page.model) : restoredHint;
      const state: PageStateMessage = { type: 'pageState', state: { key: page.key, ...(hint !== undefined ? { hint } : {}) } satisfies PageState };
      void page.panel.webview.postMessage(state);
      this.post(page);
      return;
    }
    await this.config.handle(page, parsed.data as Exclude<FromPage, { type: 'ready' }>);
  }

  private async reload(page: OpenPage<M>): Promise<void> {
    try {
      const fresh = await this.config.load(page.key, page.model !== undefined ? this.config.hintOf?.(page.model) : undefined);
      page.model = this.config.merge ? this.config.merge(page.model, fresh) : fresh;
      // A live update keeps the reader where they are: no new focus.
      page.focus = undefined;
      this.post(page);
    } catch (err) {
      const missing = this.config.missing(page.key, err);
      if (missing !== undefined) void page.panel.webview.postMessage(missing);
    }
  }
}

/** The missing message of a ledger item: only when the ledger says it is not found. */
export function ledgerMissing<T>(make: (key: string, message: string) => T, noun: string): (key: string, err: unknown) => T | undefined {
  return (key, err) => (isLedgerError(err) && err.code === 'not_found' ? make(key, `${noun} ${key} is no longer in the ledger.`) : undefined);
}

/** Copies an id for a prompt and says so in the status bar. */
export async function copyId(id: string, what: string): Promise<void> {
  await vscode.env.clipboard.writeText(id);
  void vscode.window.setStatusBarMessage(`Copied ${what}${what ? ' ' : ''}${id}`, 2000);
}
