#!/usr/bin/env node
// Checks agent-progress.vsix (from `npm run package`) offline, as the two registries would before
// accepting it: the size limit we set ourselves (5 MB), only run-time files inside, the manifest
// fields VS Code's Marketplace (vsce) and Open VSX (ovsx) refuse a package without, and the icon.
// Prints what is inside with sizes. Exit 1 with the reasons when something is wrong.
//
//   node scripts/checkPackage.mjs [FILE]      (default: agent-progress.vsix)
//
// Why not `ovsx publish` itself: ovsx 1.3 pulls @vscode/vsce 4 and @vscode/vsce-sign, which runs an
// install script, and it checks nothing more offline than publisher, name, version and a license
// before it uploads (the rest is the registry's, online). Those checks are repeated here.

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const file = path.resolve(process.argv[2] ?? path.join(root, 'agent-progress.vsix'));
const MAX_BYTES = 5 * 1024 * 1024;
const problems = [];

/** The entries of a zip file: name, sizes, and a reader of its content. */
function readZip(buf) {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65_557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip file (no end of central directory)');
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const entries = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error('corrupt central directory');
    const method = buf.readUInt16LE(at + 10);
    const compressed = buf.readUInt32LE(at + 20);
    const size = buf.readUInt32LE(at + 24);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.toString('utf8', at + 46, at + 46 + nameLen);
    entries.push({
      name,
      size,
      compressed,
      read() {
        const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
        const data = buf.subarray(start, start + compressed);
        return method === 0 ? data : zlib.inflateRawSync(data);
      },
    });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

if (!fs.existsSync(file)) {
  console.error(`${file} does not exist: run npm run package first`);
  process.exit(1);
}
const bytes = fs.statSync(file).size;
if (bytes >= MAX_BYTES) problems.push(`the package is ${(bytes / 1024 / 1024).toFixed(2)} MB; keep it under 5 MB (.vscodeignore)`);
const entries = readZip(fs.readFileSync(file));
const byName = new Map(entries.map((e) => [e.name, e]));
for (const required of ['extension.vsixmanifest', '[Content_Types].xml', 'extension/package.json', 'extension/readme.md', 'extension/changelog.md', 'extension/LICENSE.txt']) {
  if (!byName.has(required) && !(required === 'extension/LICENSE.txt' && byName.has('extension/LICENSE'))) problems.push(`${required} is missing`);
}
const allowed = [
  /^extension\.vsixmanifest$/,
  /^\[Content_Types\]\.xml$/,
  /^extension\/(package\.json|readme\.md|changelog\.md|LICENSE(\.txt)?)$/,
  /^extension\/dist\/[\w.-]+\.(js|wasm)$/,
  /^extension\/dist\/webview\/[\w.-]+\.js$/,
  /^extension\/media\/[\w.-]+\.(css|svg|png)$/,
  /^extension\/media\/walkthrough\/[\w.-]+\.md$/,
];
for (const e of entries) if (!allowed.some((re) => re.test(e.name))) problems.push(`${e.name} should not be in the package (.vscodeignore is an allow-list)`);
if (entries.some((e) => e.name.endsWith('.map'))) problems.push('source maps are packaged');

const manifest = JSON.parse(byName.get('extension/package.json')?.read().toString('utf8') ?? '{}');
const need = (cond, message) => {
  if (!cond) problems.push(message);
};
// Open VSX (ovsx validateManifest and checkLicense) and the Marketplace (vsce).
need(typeof manifest.publisher === 'string' && /^[a-z0-9][a-z0-9-]*$/i.test(manifest.publisher), "manifest: a valid 'publisher'");
need(typeof manifest.name === 'string' && /^[a-z0-9][a-z0-9-]*$/.test(manifest.name), "manifest: a valid lower-case 'name'");
need(typeof manifest.version === 'string' && /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(manifest.version), "manifest: a semver 'version'");
need(typeof manifest.engines?.vscode === 'string', "manifest: 'engines.vscode'");
need(Boolean(manifest.license) || byName.has('extension/LICENSE.txt') || byName.has('extension/LICENSE'), 'a license (Open VSX refuses a package without one)');
need(typeof manifest.displayName === 'string' && manifest.displayName.length > 0, "manifest: 'displayName'");
need(typeof manifest.description === 'string' && manifest.description.length > 0, "manifest: 'description'");
need(typeof manifest.repository === 'object' && /^https:\/\//.test(manifest.repository.url ?? ''), "manifest: 'repository' with an https url");
need(Array.isArray(manifest.keywords) && manifest.keywords.length <= 30, "manifest: at most 30 'keywords' (the Marketplace limit)");
const CATEGORIES = [
  'AI',
  'Azure',
  'Chat',
  'Data Science',
  'Debuggers',
  'Education',
  'Extension Packs',
  'Formatters',
  'Keymaps',
  'Language Packs',
  'Linters',
  'Machine Learning',
  'Notebooks',
  'Other',
  'Programming Languages',
  'SCM Providers',
  'Snippets',
  'Testing',
  'Themes',
  'Visualization',
];
for (const c of manifest.categories ?? []) need(CATEGORIES.includes(c), `manifest: unknown category "${c}"`);
need(
  /^#[0-9a-f]{6}$/i.test(manifest.galleryBanner?.color ?? '') && ['dark', 'light'].includes(manifest.galleryBanner?.theme),
  "manifest: 'galleryBanner' with a #rrggbb color and a theme",
);
const icon = manifest.icon ? byName.get(`extension/${manifest.icon}`) : undefined;
need(Boolean(icon), "manifest: an 'icon' that is in the package");
if (icon) {
  const png = icon.read();
  const isPng = png.length >= 24 && png.subarray(1, 4).toString('latin1') === 'PNG';
  need(isPng, 'the icon is a PNG (the Marketplace refuses SVG icons)');
  if (isPng) {
    const [w, h] = [png.readUInt32BE(16), png.readUInt32BE(20)];
    need(w >= 128 && h >= 128 && w === h, `the icon is square and at least 128x128 (it is ${w}x${h})`);
  }
}
for (const w of manifest.contributes?.walkthroughs ?? []) {
  for (const step of w.steps ?? []) {
    const media = step.media?.markdown ?? step.media?.image;
    if (typeof media === 'string') need(byName.has(`extension/${media}`), `walkthrough step ${step.id}: ${media} is not in the package`);
  }
}

const width = Math.max(...entries.map((e) => e.name.length));
for (const e of [...entries].sort((a, b) => a.name.localeCompare(b.name))) console.log(`  ${e.name.padEnd(width)}  ${(e.size / 1024).toFixed(1).padStart(8)} KB`);
console.log(`${path.basename(file)}: ${entries.length} files, ${(bytes / 1024 / 1024).toFixed(2)} MB compressed`);
if (problems.length > 0) {
  for (const p of problems) console.error(`  problem: ${p}`);
  process.exit(1);
}
console.log('package ok: size, contents, manifest (Marketplace and Open VSX fields), icon, walkthrough media');
