// scripts/checkPackage.mjs on .vsix files written here: a package as the registries want it
// passes; one with an SVG icon, a source file, no license, too many keywords or a walkthrough
// medium missing fails, naming each problem.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from '../../src/core/storage/sqlite/crc32';
import { tempDir, useTempDirs } from '../helpers/tmp';

const root = path.resolve(__dirname, '..', '..');
const CHECK = path.join(root, 'scripts', 'checkPackage.mjs');

/** A zip file of stored (uncompressed) entries, as small as the format allows. */
function zip(entries: Record<string, Buffer | string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
    const nameBuf = Buffer.from(name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, data);
    centrals.push(central, nameBuf);
    offset += 30 + nameBuf.length + data.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(entries).length, 8);
  end.writeUInt16LE(Object.keys(entries).length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

const MANIFEST = {
  name: 'agent-progress',
  displayName: 'Agent Progress',
  description: 'A ledger.',
  version: '0.1.0',
  publisher: 'agent-progress',
  license: 'MIT',
  repository: { type: 'git', url: 'https://example.com/agent-progress.git' },
  icon: 'media/icon.png',
  galleryBanner: { color: '#0f1c36', theme: 'dark' },
  categories: ['AI', 'Chat'],
  keywords: ['mcp'],
  engines: { vscode: '^1.101.0' },
  contributes: { walkthroughs: [{ id: 'w', steps: [{ id: 's', media: { markdown: 'media/walkthrough/s.md' } }] }] },
};

function vsix(dir: string, manifest: object, extra: Record<string, Buffer | string> = {}, drop: string[] = []): string {
  const files: Record<string, Buffer | string> = {
    'extension.vsixmanifest': '<PackageManifest/>',
    '[Content_Types].xml': '<Types/>',
    'extension/package.json': JSON.stringify(manifest),
    'extension/readme.md': '# Agent Progress',
    'extension/changelog.md': '# Changelog',
    'extension/LICENSE.txt': 'MIT',
    'extension/dist/extension.js': 'module.exports = {};',
    'extension/media/icon.png': fs.readFileSync(path.join(root, 'media', 'icon.png')),
    'extension/media/walkthrough/s.md': '# Step',
    ...extra,
  };
  for (const d of drop) delete files[d];
  const file = path.join(dir, `${Object.keys(files).length}-${Math.random().toString(36).slice(2)}.vsix`);
  fs.writeFileSync(file, zip(files));
  return file;
}

const check = (file: string) => spawnSync(process.execPath, [CHECK, file], { encoding: 'utf8' });

describe('the package check (scripts/checkPackage.mjs)', function () {
  this.timeout(30_000);
  useTempDirs();

  it('passes a package the registries accept and lists what is inside', () => {
    const r = check(vsix(tempDir(), MANIFEST));
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /extension\/media\/icon\.png\s+\d+\.\d KB/);
    assert.match(r.stdout, /package ok/);
  });

  it('names every problem of a package the registries would refuse', () => {
    const bad = { ...MANIFEST, license: undefined, icon: 'media/icon.svg', keywords: Array.from({ length: 31 }, (_, i) => `k${i}`), categories: ['AI', 'Robots'] };
    const r = check(
      vsix(tempDir(), bad, { 'extension/src/extension.ts': 'export {};', 'extension/media/icon.svg': '<svg/>' }, ['extension/LICENSE.txt', 'extension/media/walkthrough/s.md']),
    );
    assert.equal(r.status, 1);
    for (const problem of [
      /extension\/src\/extension\.ts should not be in the package/,
      /a license \(Open VSX refuses a package without one\)/,
      /at most 30 'keywords'/,
      /unknown category "Robots"/,
      /the icon is a PNG/,
      /walkthrough step s: media\/walkthrough\/s\.md is not in the package/,
      /extension\/LICENSE\.txt is missing/,
    ])
      assert.match(r.stderr, problem);
  });

  it('says what to run when there is no package', () => {
    const r = check(path.join(tempDir(), 'none.vsix'));
    assert.equal(r.status, 1);
    assert.match(r.stderr, /does not exist: run npm run package first/);
  });
});
