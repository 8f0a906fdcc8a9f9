// Driving VS Code's workbench in headless Chromium (code-server, scripts/vscode/codeServer.mjs):
// the harness's functions typed for TypeScript tests, the command palette, webviews, modal
// dialogs, the simple file dialog, and screenshots with the pointer parked out of the way.

import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Frame, Page } from 'playwright-core';

export interface CodeServer {
  port: number;
  runDir: string;
  logFile: string;
  stop(opts?: object): Promise<{ left: unknown[] }>;
}

export interface Harness {
  startCodeServer(options: object): Promise<CodeServer>;
  launchChromium(server: CodeServer): Promise<Browser>;
  workbenchUrl(server: CodeServer, options: object): string;
  cleanupReport(result: object): { ok: boolean; line: string };
  nodeBin: string;
  codeServerEntry: string;
}

export const repoRoot = path.resolve(__dirname, '..', '..');

export async function loadHarness(): Promise<Harness> {
  return (await import(pathToFileURL(path.join(repoRoot, 'scripts', 'vscode', 'codeServer.mjs')).href)) as Harness;
}

/** Moves the pointer to the status bar, so that no hover shows in a screenshot. */
export async function parkPointer(page: Page): Promise<void> {
  const size = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.mouse.move(Math.round(size.width / 2), size.height - 3);
}

/** A PNG of the window, or of the first element `selector` matches. */
export async function screenshot(page: Page, file: string, selector?: string): Promise<void> {
  await parkPointer(page);
  if (selector) await page.locator(selector).first().screenshot({ path: file });
  else await page.screenshot({ path: file });
}

/**
 * Runs a command from the palette by its title (F1, type, pick the row). Right after the window
 * opens, extensions' commands may not be listed yet: the palette is typed again until they are.
 */
export async function runCommand(page: Page, title: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const done = await (async () => {
      await page.keyboard.press('Escape');
      // Focus the workbench itself, not a webview, before F1.
      await page
        .locator('.part.statusbar')
        .first()
        .click({ position: { x: 3, y: 3 }, timeout: 5_000 })
        .catch(() => undefined);
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input').first();
      await input.waitFor({ state: 'visible', timeout: 5_000 });
      await input.fill(`>${title}`, { timeout: 5_000 });
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
      await row.waitFor({ timeout: 3_000 });
      await row.click({ timeout: 5_000 });
      return true;
    })().catch((err: unknown) => err as Error);
    if (done === true) return;
    if (Date.now() > deadline) throw new Error(`could not run "${title}" from the command palette: ${(done as Error).message.split('\n')[0]}`);
  }
}

/** The inner frame of the webview whose page has an h1 with `text`. */
export async function webviewFrame(page: Page, text: string, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      const found = await frame
        .locator('h1', { hasText: text })
        .count()
        .catch(() => 0);
      if (found > 0) return frame;
    }
    if (Date.now() > deadline) throw new Error(`no webview shows "${text}"`);
    await page.waitForTimeout(250);
  }
}

/**
 * Answers VS Code's file dialog (the simple one a web workbench shows) with an absolute path. The
 * dialog fills in its starting folder a moment after it opens: the path is typed after that.
 */
export async function answerFileDialog(page: Page, file: string): Promise<void> {
  const input = page.locator('.quick-input-widget input').first();
  await input.waitFor({ state: 'visible' });
  const deadline = Date.now() + 15_000;
  while ((await input.inputValue()) === '') {
    if (Date.now() > deadline) throw new Error('the file dialog never showed its starting folder');
    await page.waitForTimeout(100);
  }
  for (;;) {
    await input.fill(file);
    await page.waitForTimeout(300);
    if ((await input.inputValue()) === file) break;
    if (Date.now() > deadline) throw new Error(`the file dialog shows "${await input.inputValue()}", not ${file}`);
  }
  await page.keyboard.press('Enter');
}

/**
 * The text of the notification matching `text`: a toast, or (toasts hide after a while, and a
 * busy window may never show them) the notification centre, opened when the toasts lack it.
 */
export async function notification(page: Page, text: RegExp, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const item = page.locator('.notification-list-item', { hasText: text }).first();
    if ((await item.count()) > 0) return item.innerText();
    if (Date.now() > deadline) throw new Error(`no notification says ${text}`);
    await page.waitForTimeout(1_000);
    if ((await page.locator('.notifications-center.visible').count()) === 0) {
      await page
        .locator('.part.statusbar .statusbar-item[id$="notifications"], #status\\.notifications')
        .first()
        .click({ timeout: 3_000 })
        .catch(() => undefined);
    }
  }
}

/** Closes the notification centre if it is open (it covers the panel). */
export async function closeNotifications(page: Page): Promise<void> {
  if ((await page.locator('.notifications-center.visible').count()) > 0) await page.keyboard.press('Escape');
}

/** Clicks a button of the modal dialog showing now. */
export async function clickDialogButton(page: Page, name: string | RegExp): Promise<void> {
  await page.locator('.monaco-dialog-box').getByRole('button', { name }).click();
}
