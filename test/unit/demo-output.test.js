'use strict';
/**
 * What the demo shows in its terminal and what the examples show in the debug sidebar:
 * Node-RED's warnings and errors reach the demo's terminal (Node-RED's other output stays quiet),
 * and no example floods the sidebar with a debug node fed by an output that fires every cycle.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { warningLines } = require('../../scripts/node-red-runner');

/** Feeds `chunks` to warningLines and resolves with what it emitted once the output paused. */
function emitted(chunks) {
  const out = [];
  const feed = warningLines((t) => out.push(t));
  for (const c of chunks) feed(c);
  return new Promise((resolve) => {
    const poll = () => (out.length > 0 || chunks.length === 0 ? resolve(out) : setTimeout(poll, 20));
    setTimeout(poll, 250);
  });
}

describe("the demo's terminal: Node-RED's warnings and errors", function () {
  it('emits each [warn] and [error] entry with the lines that follow it, and nothing else', async function () {
    const out = await emitted([
      '3 Dec 21:05:01 - [info] Started flows\n',
      '3 Dec 21:05:02 - [warn] [mm2-checkpoint:translate] no ACL to read __consumer_offsets\n    grant Describe\n',
      '3 Dec 21:05:03 - [error] [mm2-mirror:copy] boom\nError: boom\n    at x (y.js:1:1)\n',
      '3 Dec 21:05:04 - [info] done\n',
    ]);
    assert.deepEqual(out, [
      '3 Dec 21:05:02 - [warn] [mm2-checkpoint:translate] no ACL to read __consumer_offsets\n    grant Describe',
      '3 Dec 21:05:03 - [error] [mm2-mirror:copy] boom\nError: boom\n    at x (y.js:1:1)',
    ]);
  });

  it('a line cut across two chunks is read whole', async function () {
    const out = await emitted(['3 Dec 21:05:02 - [wa', 'rn] half and half\n', '3 Dec 21:05:04 - [info] next\n']);
    assert.deepEqual(out, ['3 Dec 21:05:02 - [warn] half and half']);
  });

  it('an entry with nothing after it is emitted once the output pauses', async function () {
    const out = await emitted(['3 Dec 21:05:02 - [error] last words\n']);
    assert.deepEqual(out, ['3 Dec 21:05:02 - [error] last words']);
  });
});

describe("the examples' debug nodes do not flood the sidebar", function () {
  // outputs that send a message every cycle or every write, whatever changed
  const PERIODIC = { 'mm2-checkpoint': [0, 1], 'mm2-group-offsets': [0], 'mm2-mirror': [0], 'mm2-heartbeat': [0] };
  const WIRED = ['full-failover.json', 'active-active.json', 'failback.json', 'checkpoints-beside-mm2.json'];
  const dir = path.join(__dirname, '..', '..', 'examples');
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    it(`${file}: a debug node fed by a periodic output is off, and its name says how to turn it on`, function () {
      const flow = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
      const byId = new Map(flow.map((n) => [n.id, n]));
      let periodic = 0;
      for (const n of flow) {
        const ports = PERIODIC[n.type];
        if (!ports || !Array.isArray(n.wires)) continue;
        for (const port of ports) {
          for (const id of n.wires[port] || []) {
            const d = byId.get(id);
            if (!d || d.type !== 'debug') continue;
            periodic++;
            assert.equal(d.active, false, `${file}: debug '${d.name}' on ${n.type} output ${port + 1} is on`);
            assert.match(d.name, /off: click its button to see/, `${file}: debug '${d.name}' says how to turn it on`);
          }
        }
      }
      // the examples that wire these outputs to debug nodes: the check is not empty there
      if (WIRED.includes(file)) assert.ok(periodic > 0, `${file}: its periodic outputs' debug nodes were found`);
    });
  }
});
