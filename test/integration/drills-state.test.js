'use strict';
/**
 * Failover drills of issue 7 that lost every target offset (the example flow
 * `checkpoints-beside-mm2` in a real Node-RED, real brokers; see test/harness/drill.js):
 *
 * - a full redeploy after the first checkpoint write, before the first group-offset sync;
 * - the Node-RED process restarted at that moment.
 *   (The event-driven pipeline writes group offsets right after the checkpoints, so the drills
 *   hold that moment by deploying the group-offsets node disabled first: it is enabled by the
 *   redeploy, or in the flow file before the restart, and must then get the whole state.)
 * - the groups deleted on the target while the flow was undeployed, then deployed again;
 * - only the group-offsets node redeployed (a "modified nodes" deploy) after the first
 *   checkpoint write: it reads the running checkpoint node's store in the replication's runtime;
 * - the group-offsets node in mode replication, no wire at all: the same, and without a checkpoint
 *   node of its replication it waits, saying for what, never green.
 *
 * Each must end with every selected group having its target offsets (the drill's intervals are
 * short; the waits are generous for a loaded machine), and the group-offsets and checkpoint
 * nodes must never be green before there is something on the target to be green about.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const env = require('../harness/env');
const { startNodeRed } = require('../../scripts/node-red-runner');
const drill = require('../harness/drill');

const WATCH = ['checkpoint', 'groupoffsets'];

describe('failover drills: state over messages (real Node-RED, real brokers)', function () {
  this.timeout(300000);
  let nr = null;
  let watcher = null;
  let checker = null;
  const userDirs = [];

  afterEach(async function () {
    if (watcher) watcher.close();
    watcher = null;
    if (nr) await nr.stop();
    nr = null;
    if (checker) await checker.close();
    checker = null;
    while (userDirs.length) fs.rmSync(userDirs.pop(), { recursive: true, force: true });
  });

  async function setUp(tag) {
    const names = drill.drillNames(tag);
    const sourceBootstrap = env.cluster('source').bootstrap;
    const targetBootstrap = env.cluster('target').bootstrap;
    await drill.seed(names, sourceBootstrap, targetBootstrap);
    checker = drill.targetChecker(names, targetBootstrap);
    watcher = drill.statusWatcher(WATCH, drill.greenRules(checker));
    const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mm2-drill-'));
    userDirs.push(userDir);
    return { names, flow: drill.drillFlow(names, sourceBootstrap, targetBootstrap), userDir };
  }

  /** Seeds the drill, starts Node-RED with the status watcher and deploys the flow (`first`: the flow to deploy first, if not the drill's). */
  async function setUpAndDeploy(tag, first) {
    const d = await setUp(tag);
    nr = await startNodeRed({ userDir: d.userDir, quiet: true, logLevel: 'warn' });
    await watcher.connect(nr.port);
    await nr.deploy(first ? first(d.names) : d.flow);
    return d;
  }

  /** The drill flow with the group-offsets node disabled: checkpoints are written, target offsets are not. */
  const withoutWriter = (names) => drill.drillFlow(names, env.cluster('source').bootstrap, env.cluster('target').bootstrap, { groupOffsetsDisabled: true });

  async function everyGroupSynced(names, what) {
    await env.eventually(async () => (await checker.groupsWithOffsets()).length === names.groups.length, {
      timeout: 120000,
      interval: 500,
      what: `every selected group (${names.groups.length}) to have its target offsets ${what}`,
    });
  }

  async function firstCheckpointWritten(names) {
    await env.eventually(async () => (await checker.checkpointRecords()) > 0, { timeout: 90000, interval: 100, what: 'the first checkpoint write' });
    assert.equal(await checker.anyGroupWithOffset(), false, 'the fault comes before the first group-offset sync');
  }

  async function noLyingGreen() {
    assert.deepEqual(await watcher.settle(), [], 'no green status before there was something on the target to be green about');
  }

  it('(b) a full redeploy after the first checkpoint write, before the first group-offset sync', async function () {
    const { names, flow } = await setUpAndDeploy('drb', withoutWriter);
    await firstCheckpointWritten(names);
    await nr.deploy(flow);
    await everyGroupSynced(names, 'after the redeploy');
    await noLyingGreen();
    // the status follows the run's report, which comes after its last commit: waited for, not raced
    await env.eventually(() => watcher.history.some((s) => s.id === 'groupoffsets' && s.fill === 'green'), {
      timeout: 60000, interval: 200, what: 'the group-offsets node turning green once it had written',
    });
  });

  it('(c) the Node-RED process restarted after the first checkpoint write, before the first group-offset sync', async function () {
    const { names, userDir, flow } = await setUpAndDeploy('drc', withoutWriter);
    await firstCheckpointWritten(names);
    await nr.stop();
    watcher.close();
    // the flow file as a deploy of the whole flow would have left it (the writer enabled)
    fs.writeFileSync(path.join(userDir, 'flows.json'), JSON.stringify(flow, null, 2));
    // the same user directory: the deployed flow comes back from its flow file (a free port
    // picked for it can be taken by another process before Node-RED listens: pick another)
    for (let attempt = 1; ; attempt++) {
      try {
        nr = await startNodeRed({ userDir, quiet: true, logLevel: 'warn' });
        break;
      } catch (e) {
        nr = null;
        if (attempt >= 3 || !/port in use/.test(e.message)) throw e;
      }
    }
    await watcher.connect(nr.port);
    await everyGroupSynced(names, 'after the restart');
    await noLyingGreen();
  });

  it('(e) only the group-offsets node redeployed after the first checkpoint write: it reads the running checkpoint node\'s store at once', async function () {
    // The checkpoint node keeps running, and its groups are idle: its output 1 carries only what
    // changed (nothing), never the whole state again. The redeployed writer reads the store in the
    // replication's runtime, so it writes at once.
    const { names, flow } = await setUpAndDeploy('dre', withoutWriter);
    await firstCheckpointWritten(names);
    await nr.deploy(flow, 'nodes');
    await everyGroupSynced(names, 'after the writer alone was redeployed');
    await noLyingGreen();
  });

  it('(f) mode replication, no wire into the writer: it writes from the checkpoint node\'s store, again when redeployed alone; without a checkpoint node it waits, never green', async function () {
    const variant = (names, o) => drill.drillFlow(names, env.cluster('source').bootstrap, env.cluster('target').bootstrap, { groupOffsetsMode: 'replication', ...o });
    const { names } = await setUpAndDeploy('drf', (n) => variant(n, { withoutCheckpointNode: true }));
    // no checkpoint node of the replication: the writer says what it waits for
    await env.eventually(() => watcher.history.some((s) => s.id === 'groupoffsets' && /waiting for the mm2-checkpoint node/.test(s.text || '')), {
      timeout: 30000, interval: 200, what: 'the writer saying it waits for the checkpoint node',
    });
    assert.equal(await checker.anyGroupWithOffset(), false);
    await nr.deploy(variant(names, {}));
    await everyGroupSynced(names, 'once the checkpoint node runs (no wire into the writer)');
    // the writer alone redeployed, its groups deleted on the target meanwhile: it writes them again from the store
    const flow = variant(names, {});
    await nr.deploy(flow.map((n) => (n.type === 'mm2-group-offsets' ? { ...n, d: true } : n)), 'nodes');
    await env.eventually(async () => {
      await checker.deleteGroups();
      return (await checker.groupsWithOffsets()).length === 0;
    }, { timeout: 30000, interval: 500, what: 'the groups to be deleted on the target' });
    await nr.deploy(flow, 'nodes');
    await everyGroupSynced(names, 'after the writer alone was redeployed');
    await noLyingGreen();
  });

  it('(d) groups deleted on the target while the flow was undeployed get their offsets again', async function () {
    const { names, flow } = await setUpAndDeploy('drd');
    await everyGroupSynced(names, 'at first');
    // undeploy (only the config nodes stay), delete the groups on the target, deploy again
    await nr.deploy(flow.filter((n) => !n.z));
    await env.eventually(async () => {
      await checker.deleteGroups();
      return (await checker.groupsWithOffsets()).length === 0;
    }, { timeout: 30000, interval: 500, what: 'the groups to be deleted on the target' });
    await nr.deploy(flow);
    await everyGroupSynced(names, 'after the groups were deleted and the flow deployed again');
    await noLyingGreen();
  });
});
