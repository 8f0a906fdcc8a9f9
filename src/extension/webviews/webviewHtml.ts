// The one place webview HTML is written: a strict Content Security Policy (nothing by default,
// scripts only with this page's nonce, styles and images only from the extension), theme colours.

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export interface WebviewPage {
  webview: vscode.Webview;
  extensionUri: vscode.Uri;
  title: string;
  /** Paths relative to the extension root, e.g. ['dist', 'webview', 'entry.js']. */
  script: string[];
  /** The page's own stylesheets, after media/base.css. */
  styles: string[][];
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'media'), vscode.Uri.joinPath(extensionUri, 'dist', 'webview')],
  };
}

export function contentSecurityPolicy(webview: vscode.Webview, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export function webviewHtml(page: WebviewPage): string {
  const nonce = randomBytes(16).toString('base64');
  const uri = (parts: string[]) => page.webview.asWebviewUri(vscode.Uri.joinPath(page.extensionUri, ...parts)).toString();
  const styles = [['media', 'base.css'], ...page.styles].map((s) => `<link rel="stylesheet" href="${uri(s)}">`).join('\n  ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(page.webview, nonce)}">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  ${styles}
  <title>${escapeHtml(page.title)}</title>
</head>
<body>
  <main id="app" aria-live="polite"><p class="muted">Loading…</p></main>
  <script nonce="${nonce}" src="${uri(page.script)}"></script>
</body>
</html>`;
}
