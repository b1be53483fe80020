'use strict';
/** examples/active-active.json made runnable in the test helper, for the active/active tests. */
const fs = require('node:fs');
const path = require('node:path');
const env = require('./env');

const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'active-active.json');

/**
 * The example, runnable in the test helper: debug nodes become helper nodes, injects and comments
 * go; its clusters point at the test clusters (east: 'source', west: 'target') with aliases
 * `${tag}east` / `${tag}west`; its topic and group selection narrowed to names containing `P`,
 * its intervals shortened. `over[type]` is assigned to every node of that type after that
 * (`over.rep` to the mm2-replication nodes); `drop` lists node types left out (with their wires).
 * @param {string} tag
 * @param {string} P
 * @param {Record<string, Record<string, unknown>>} [over]
 * @param {string[]} [drop]
 */
function exampleFlow(tag, P, over = {}, drop = []) {
  const flow = JSON.parse(fs.readFileSync(EXAMPLE, 'utf8'));
  const kept = flow.filter((/** @type {any} */ n) => n.type !== 'comment' && n.type !== 'inject' && !drop.includes(n.type));
  const out = [];
  for (const n of kept) {
    if (n.type === 'debug') {
      out.push({ id: n.id, z: n.z, type: 'helper' });
      continue;
    }
    if (n.type === 'mm2-cluster') Object.assign(n, { alias: `${tag}${n.alias}`, bootstrap: env.cluster(n.alias === 'east' ? 'source' : 'target').bootstrap });
    // this file's topics (local and remote of either direction: the cycle check must leave those out) and groups
    if (n.type === 'mm2-mirror') Object.assign(n, { topics: `.*${P}.*`, refreshTopicsIntervalSeconds: '2', offsetFlushIntervalMs: '1000' });
    if (n.type === 'mm2-checkpoint') Object.assign(n, { groups: `${P}.*`, topics: `.*${P}.*`, emitCheckpointsIntervalSeconds: '2', refreshGroupsIntervalSeconds: '2' });
    if (n.type === 'mm2-group-offsets') Object.assign(n, { groups: `${P}.*`, syncGroupOffsetsIntervalSeconds: '2' });
    if (n.type === 'mm2-heartbeat') Object.assign(n, { emitHeartbeatsIntervalSeconds: '1' });
    Object.assign(n, over[n.type === 'mm2-replication' ? 'rep' : n.type] || {});
    if (n.wires) n.wires = n.wires.map((/** @type {string[]} */ ws) => ws.filter((w) => kept.some((/** @type {any} */ x) => x.id === w)));
    out.push(n);
  }
  return out;
}

module.exports = { exampleFlow };
