#!/usr/bin/env node
// Renders media/icon-source.svg to media/icon.png (128x128, the Marketplace icon) with the
// headless Chromium of the VS Code harness (scripts/vscode/install.sh). Run after editing the SVG:
//   node scripts/renderIcon.mjs [--size=128]

import fs from 'node:fs';
import path from 'node:path';
import { chromiumPath, CHROMIUM_ARGS, loadPlaywright } from './vscode/codeServer.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const size = Number((process.argv.find((a) => a.startsWith('--size=')) ?? '--size=128').slice(7));
const svg = fs.readFileSync(path.join(root, 'media', 'icon-source.svg'), 'utf8');
const { chromium } = loadPlaywright();
const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
  await page.setContent(
    `<!doctype html><html><body style="margin:0;background:transparent">${svg.replace(/width="128" height="128"/, `width="${size}" height="${size}"`)}</body></html>`,
  );
  const out = path.join(root, 'media', 'icon.png');
  await page.locator('svg').screenshot({ path: out, omitBackground: true });
  console.log(`wrote ${path.relative(root, out)} (${size}x${size}, ${fs.statSync(out).size} bytes)`);
} finally {
  await browser.close();
}
