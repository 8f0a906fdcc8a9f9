// Summarises a V8 .cpuprofile (node --cpu-prof, or bench/run.mjs --profile): where the time went,
// by function, self and inclusive, as percentages of the sampled time. Usage:
//   node bench/profileSummary.mjs FILE.cpuprofile [TOP_SELF=25] [TOP_INCLUSIVE=40]
// WebAssembly frames of sql.js show as wasm-function[N] (its release build carries no names).

import * as fs from 'node:fs';

const [file, topSelf = '25', topInclusive = '40'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('Usage: node bench/profileSummary.mjs FILE.cpuprofile [TOP_SELF] [TOP_INCLUSIVE]\n');
  process.exit(2);
}
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').pop() || ''}:${n.callFrame.lineNumber + 1}`;

const sampled = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  sampled.set(id, (sampled.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const self = new Map();
const inclusive = new Map();
let total = 0;
let idle = 0;
for (const [id, us] of sampled) {
  total += us;
  const node = byId.get(id);
  if (node.callFrame.functionName === '(idle)') idle += us;
  self.set(label(node), (self.get(label(node)) ?? 0) + us);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const key = label(byId.get(cur));
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}
const busy = total - idle;
const show = (map, n) =>
  [...map]
    .filter(([k]) => !k.startsWith('(idle)') && !k.startsWith('(root)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(n))
    .map(([k, us]) => `${((100 * us) / busy).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`)
    .join('\n');
process.stdout.write(
  `${file}\nsampled ${(total / 1000).toFixed(0)} ms, of which idle ${(idle / 1000).toFixed(0)} ms; percentages are of the busy ${(busy / 1000).toFixed(0)} ms\n`,
);
process.stdout.write(`\n-- self time\n${show(self, topSelf)}\n\n-- inclusive time\n${show(inclusive, topInclusive)}\n`);
