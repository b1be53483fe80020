'use strict';
/**
 * Summarises a V8 heap snapshot (e.g. the one bench/freshness.js writes with BENCH_NR_CPU_PROF=dir
 * BENCH_NR_HEAP_SNAPSHOT=1): self size by node type / constructor name, the top N, and the total.
 * Usage: node bench/heap-snapshot-summary.js FILE.heapsnapshot [top=30]
 */
const fs = require('node:fs');

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/heap-snapshot-summary.js FILE.heapsnapshot [top]');
const top = Number(topArg ?? 30);
const snap = JSON.parse(fs.readFileSync(file, 'utf8'));
const meta = snap.snapshot.meta;
const F = meta.node_fields.length;
const iType = meta.node_fields.indexOf('type');
const iName = meta.node_fields.indexOf('name');
const iSize = meta.node_fields.indexOf('self_size');
const types = meta.node_types[0];
const nodes = snap.nodes;
const by = new Map();
let total = 0;
for (let i = 0; i < nodes.length; i += F) {
  const type = types[nodes[i + iType]];
  const size = nodes[i + iSize];
  total += size;
  // objects and closures by constructor / function name; strings, arrays, code... by type
  const key = type === 'object' || type === 'closure' || type === 'native' ? `${type}:${snap.strings[nodes[i + iName]]}` : type;
  const e = by.get(key) ?? { count: 0, size: 0 };
  e.count++;
  e.size += size;
  by.set(key, e);
}
const mib = (b) => (b / 1048576).toFixed(1);
process.stdout.write(`${file}: ${(nodes.length / F).toLocaleString('en-US')} nodes, ${mib(total)} MiB self size\n`);
process.stdout.write('MiB      count  what\n');
for (const [k, e] of [...by].sort((a, b) => b[1].size - a[1].size).slice(0, top))
  process.stdout.write(`${mib(e.size).padStart(6)} ${String(e.count).padStart(10)}  ${k.slice(0, 100)}\n`);

// The largest single nodes and who holds them (a retainer path, 6 steps up, weak edges skipped).
const iEdges = meta.node_fields.indexOf('edge_count');
const E = meta.edge_fields.length;
const eType = meta.edge_fields.indexOf('type');
const eName = meta.edge_fields.indexOf('name_or_index');
const eTo = meta.edge_fields.indexOf('to_node');
const edgeTypes = meta.edge_types[0];
const edges = snap.edges;
const firstRetainer = new Int32Array(nodes.length / F).fill(-1);
const retainEdge = new Int32Array(nodes.length / F).fill(-1);
for (let n = 0, e = 0; n < nodes.length; n += F) {
  for (let k = 0; k < nodes[n + iEdges]; k++, e += E) {
    const t = edgeTypes[edges[e + eType]];
    if (t === 'weak' || t === 'shortcut') continue;
    const to = edges[e + eTo] / F;
    if (firstRetainer[to] === -1) {
      firstRetainer[to] = n / F;
      retainEdge[to] = e;
    }
  }
}
const label = (n) => `${types[nodes[n * F + iType]]}:${String(snap.strings[nodes[n * F + iName]]).slice(0, 40)}`;
const edgeLabel = (e) => {
  const t = edgeTypes[edges[e + eType]];
  return t === 'element' || t === 'hidden' ? `[${edges[e + eName]}]` : `.${String(snap.strings[edges[e + eName]]).slice(0, 30)}`;
};
const big = [];
for (let n = 0; n < nodes.length / F; n++) big.push(n);
big.sort((a, b) => nodes[b * F + iSize] - nodes[a * F + iSize]);
process.stdout.write('\nlargest nodes (KiB, what <- holder chain)\n');
for (const n of big.slice(0, Number(process.env.TOP_NODES ?? 15))) {
  const chain = [];
  for (let c = n, d = 0; d < 7 && firstRetainer[c] !== -1; d++) {
    chain.push(`${edgeLabel(retainEdge[c])} <- ${label(firstRetainer[c])}`);
    c = firstRetainer[c];
  }
  process.stdout.write(`${String(Math.round(nodes[n * F + iSize] / 1024)).padStart(7)} ${label(n)} ${chain.join(' ')}\n`);
}
