'use strict';
/**
 * Summary of a V8 .cpuprofile (from bench/cpu-profile-preload.js): profiled time, the functions
 * with the most self time, and the most inclusive time per function (time spent in it or below).
 * Usage: node bench/cpu-profile-summary.js FILE [top=25]
 */
const fs = require('node:fs');
const path = require('node:path');

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/cpu-profile-summary.js FILE [top]\n');
  process.exit(2);
}
const top = Number(topArg) || 25;
const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n) => {
  const f = n.callFrame;
  const where = f.url ? `${path.basename(path.dirname(f.url.replace(/^file:\/\//, '')))}/${path.basename(f.url)}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
};
const self = new Map();
const incl = new Map();
let total = 0;
let idle = 0;
prof.samples.forEach((id, i) => {
  const dt = (prof.timeDeltas[i] ?? 0) / 1000; // ms
  total += dt;
  const n = byId.get(id);
  if (n.callFrame.functionName === '(idle)') {
    idle += dt;
    return;
  }
  self.set(label(n), (self.get(label(n)) ?? 0) + dt);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur));
    if (seen.has(l)) continue;
    seen.add(l);
    incl.set(l, (incl.get(l) ?? 0) + dt);
  }
});
const busy = total - idle;
const pct = (ms) => `${((100 * ms) / busy).toFixed(1)}%`.padStart(6);
process.stdout.write(`${file}: ${(total / 1000).toFixed(1)} s profiled, ${(busy / 1000).toFixed(1)} s on the JS thread (${((100 * busy) / total).toFixed(0)}%), ${(idle / 1000).toFixed(1)} s idle\n`);
process.stdout.write(`\nself time (share of busy):\n`);
for (const [l, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`  ${pct(ms)} ${(ms / 1000).toFixed(2).padStart(6)} s  ${l}\n`);
process.stdout.write(`\ninclusive time (share of busy):\n`);
for (const [l, ms] of [...incl].filter(([l]) => !/^\((root|program|garbage collector)\)/.test(l)).sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`  ${pct(ms)} ${(ms / 1000).toFixed(2).padStart(6)} s  ${l}\n`);
