'use strict';
/**
 * Summarises a V8 sampling heap profile (<n>.heapprofile written by bench/cpu-profile-preload.js with
 * BENCH_NR_HEAP_SNAPSHOT=1; it counts objects collected again too, so it shows allocation volume):
 * bytes allocated by the allocating function, and by the innermost frame of our own code (dist/) on
 * the stack. Usage: node bench/heap-profile-summary.js FILE.heapprofile [top=25]
 */
const fs = require('node:fs');
const path = require('node:path');

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/heap-profile-summary.js FILE.heapprofile [top]');
const top = Number(topArg ?? 25);
const { head } = JSON.parse(fs.readFileSync(file, 'utf8'));
const where = (cf) => `${cf.functionName || '(anonymous)'} ${cf.url ? `${path.basename(cf.url)}:${cf.lineNumber + 1}` : ''}`.trim();
const ours = (cf) => /\/dist\//.test(cf.url) && !/node_modules/.test(cf.url);
const self = new Map();
const byOurs = new Map();
let total = 0;
const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v);
const walk = (node, ourFrame) => {
  const cf = node.callFrame;
  const mine = ours(cf) ? where(cf) : ourFrame;
  if (node.selfSize > 0) {
    total += node.selfSize;
    add(self, where(cf), node.selfSize);
    add(byOurs, mine ?? '(no frame of ours)', node.selfSize);
  }
  for (const c of node.children) walk(c, mine);
};
walk(head, undefined);
const mib = (b) => (b / 1048576).toFixed(1).padStart(7);
process.stdout.write(`${file}: ${mib(total).trim()} MiB allocated (sampled)\n\nby allocating function\n`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${mib(v)}  ${k}\n`);
process.stdout.write('\nby innermost frame of ours (dist/)\n');
for (const [k, v] of [...byOurs].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${mib(v)}  ${k}\n`);
