'use strict';
/**
 * Failover drill of issue 7: the target broker killed (kill -9) shortly after deploy, before the
 * first checkpoint write, and started again on its own data directory once the nodes show it
 * unreachable. Before the fix the failed producer connect marked the checkpoints as written, no
 * checkpoint ever reached the target and no target offset was ever written, with every node green.
 *
 * Uses a target cluster of its own (the shared `target` of the run is never killed) and the
 * run's `source`; the example flow `checkpoints-beside-mm2` in a real Node-RED (test/harness/drill.js).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const env = require('../harness/env');
const { startCluster } = require('../../scripts/kafka/cluster');
const { startNodeRed } = require('../../scripts/node-red-runner');
const drill = require('../harness/drill');

const WATCH = ['checkpoint', 'groupoffsets'];

describe('failover drill: target broker killed after deploy and restarted (real Node-RED, real brokers)', function () {
  this.timeout(300000);
  let target = null;
  let nr = null;
  let watcher = null;
  let checker = null;
  let userDir = null;

  before(async function () {
    this.timeout(180000);
    target = await startCluster('drill-target');
  });

  after(async function () {
    this.timeout(60000);
    if (watcher) watcher.close();
    if (nr) await nr.stop();
    if (checker) await checker.close();
    if (target) await target.stop();
    if (userDir) fs.rmSync(userDir, { recursive: true, force: true });
  });

  it('(a) every selected group gets its target offsets after the target is back; red while it is gone, never a lying green', async function () {
    const names = drill.drillNames('dra');
    const sourceBootstrap = env.cluster('source').bootstrap;
    await drill.seed(names, sourceBootstrap, target.bootstrap);
    checker = drill.targetChecker(names, target.bootstrap);
    watcher = drill.statusWatcher(WATCH, drill.greenRules(checker));
    userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mm2-drill-'));
    nr = await startNodeRed({ userDir, quiet: true, logLevel: 'warn' });
    await watcher.connect(nr.port);
    // a longer emit interval, so that the kill lands between the restore and the first write
    // (cycles on the interval only: the event path would write as soon as the syncs are loaded)
    await nr.deploy(drill.drillFlow(names, sourceBootstrap, target.bootstrap, { emitS: 5, sourceOffsets: 'poll' }));

    // the checkpoint node has restored (the target answered) and waits for its first cycle: kill -9
    await env.eventually(() => {
      const s = watcher.at('checkpoint', Date.now());
      return s && /waiting for (the first cycle|offset syncs)/.test(s.text || '');
    }, { timeout: 60000, interval: 50, what: 'the checkpoint node to be ready for its first cycle' });
    assert.equal(await checker.checkpointRecords(), 0, 'no checkpoint written before the kill');
    await checker.close();
    await target.kill();
    const killedAt = Date.now();

    // both nodes say the target is unreachable: red
    await env.eventually(() => WATCH.every((id) => {
      const s = watcher.at(id, Date.now());
      return s && s.at > killedAt && s.fill === 'red';
    }), { timeout: 90000, interval: 200, what: 'red statuses of both nodes while the target is down' });
    const redAt = Date.now();

    // the window ends when the restart begins: restart() returns once the broker answers, and the
    // nodes may have written to it and turned green by then (seen under load: "24 new" while restart() was still waiting)
    const restartAt = Date.now();
    await target.restart();
    const greenWhileDown = watcher.history.filter((s) => s.at >= redAt && s.at <= restartAt && s.fill === 'green');
    assert.deepEqual(greenWhileDown, [], 'no green while the target was unreachable');

    await env.eventually(async () => (await checker.groupsWithOffsets()).length === names.groups.length, {
      timeout: 120000,
      interval: 500,
      what: `every selected group (${names.groups.length}) to have its target offsets after the target came back`,
    });
    // the group-offsets node reads the checkpoint node's store (mode replication), so the target's
    // offsets may come before the checkpoints' write, which waits on its retry list for the
    // restarted broker: waited for, not raced
    await env.eventually(async () => (await checker.checkpointRecords()) > 0, { timeout: 60000, interval: 500, what: 'the checkpoints to reach the target' });
    assert.deepEqual(await watcher.settle(), [], 'no green status before there was something on the target to be green about');
  });
});
