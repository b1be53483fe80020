'use strict';
/**
 * The same flow deployed in several real Node-RED processes on the same clusters splits the
 * checkpoint work (issue 25, step 2: engines/replication-shares): each group's checkpoints and
 * target offsets are written by exactly one instance and the union covers every group; when one
 * instance stops the other takes every group; a third whose group filter differs is kept out,
 * does nothing and names the setting.
 *
 * Each instance's mm2-checkpoint output 1 (what each cycle wrote) and mm2-group-offsets output 1
 * (what each run committed) go to a file of its own (Node-RED's file node), which tells which
 * instance wrote what.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { nodeRedInstances, seedSharedFlow, sharedFlowBase } = require('../harness/instances');

describe('share instances: one flow in several Node-RED processes splits the checkpoint work (real brokers)', function () {
  this.timeout(420000);
  const S = env.unique('shs');
  const T = env.unique('sht');
  const P = env.unique('shg');
  const TOPIC = env.unique('sh-orders');
  const REMOTE = `${S}.${TOPIC}`;
  const SYNCS = `mm2-offset-syncs.${T}.internal`;
  const nrs = nodeRedInstances('mm2-share-');
  let committer;

  /** The flow every instance runs; `groups` differs only for the one kept out; `name` only names its output files. */
  function flow(name, groups = `${P}-.*`) {
    const file = (id, what) => nrs.fileNode(name, id, what);
    return [
      ...sharedFlowBase(S, T, 'share'),
      {
        id: 'cp', type: 'mm2-checkpoint', z: 'tab', replication: 'rep', groups, groupsExclude: '', topics: TOPIC, topicsExclude: '',
        emitCheckpointsIntervalSeconds: '2', refreshGroupsIntervalSeconds: '2', sourceOffsets: 'auto', wires: [['cp-out'], []],
      },
      { id: 'go', type: 'mm2-group-offsets', z: 'tab', replication: 'rep', mode: 'replication', syncGroupOffsetsIntervalSeconds: '2', groups, groupsExclude: '', wires: [['go-out']] },
      file('cp-out', 'checkpoints'),
      file('go-out', 'commits'),
    ];
  }

  const start = (name, groups) => nrs.start(name, flow(name, groups));
  const lines = nrs.lines;

  /** The groups an instance wrote a checkpoint for (with that upstream offset), and those it committed on the target. */
  const checkpointed = (name, upstream) => new Set(lines(name, 'checkpoints').flatMap((p) => p.checkpoints.filter((c) => c.upstreamOffset === upstream).map((c) => c.group)));
  const committed = (name) => new Set(lines(name, 'commits').flatMap((p) => p.written.map((w) => w.group)));

  const status = nrs.status;
  const logs = nrs.logs;

  async function commitAll(groups, offset) {
    for (const g of groups) assert.equal((await committer.commit(g, [{ topic: TOPIC, partition: 0, offset: BigInt(offset) }])).ok, true, g);
  }

  before(async function () {
    committer = await seedSharedFlow({ topic: TOPIC, syncs: SYNCS, remote: REMOTE, warmGroup: `warm-${P}` });
  });

  after(async function () {
    if (this.currentTest && this.currentTest.state === 'failed') console.log(logs());
    await nrs.stopAll();
    if (committer) await committer.close();
  });

  it('two instances split 20 groups disjointly (checkpoints and target commits), one takes everything when the other stops, a third with another group filter is kept out and names the setting', async function () {
    const [a, b] = [await start('a'), await start('b')];
    // both in one generation of two: the status shows the share
    try {
      await env.eventually(() => /2 instances/.test(status('a', 'cp').text || '') && /2 instances/.test(status('b', 'cp').text || ''), { timeout: 90000, what: 'both checkpoint nodes showing a share of 2 instances' });
    } catch (e) {
      throw new Error(`${e.message}: a ${JSON.stringify(status('a', 'cp'))}, b ${JSON.stringify(status('b', 'cp'))}\n${logs()}`);
    }
    for (const name of ['a', 'b']) assert.match(status(name, 'cp').text, /of \d+ partitions, 2 instances/, `${name}: ${status(name, 'cp').text}`);

    // 20 groups committed now: each checkpointed by exactly one instance, all covered
    const groups = Array.from({ length: 20 }, (_, i) => `${P}-g${i}`);
    await commitAll(groups, 5);
    await env.eventually(() => groups.every((g) => checkpointed('a', '5').has(g) || checkpointed('b', '5').has(g)), { timeout: 90000, what: 'every group checkpointed by one of the instances' });
    const [ca, cb] = [checkpointed('a', '5'), checkpointed('b', '5')];
    assert.deepEqual([...ca].filter((g) => cb.has(g)), [], 'no group checkpointed by both instances');
    assert.ok(ca.size > 0 && cb.size > 0, `each instance has a share of the groups: a ${ca.size}, b ${cb.size}`);
    assert.equal(ca.size + cb.size, 20);
    // the statuses add up: "x of 20 groups" on each, x summing to 20
    await env.eventually(() => {
      const owned = ['a', 'b'].map((n) => /^([\d,]+) of 20 groups/.exec(status(n, 'cp').text || ''));
      return owned.every(Boolean) && Number(owned[0][1]) + Number(owned[1][1]) === 20;
    }, { timeout: 60000, what: `the two statuses' groups adding up to 20 (${status('a', 'cp').text} / ${status('b', 'cp').text})` });

    // the target offsets: every group at 101, each committed by the instance that checkpointed it
    const target = await env.admin('target');
    await env.eventually(async () => {
      for (const g of groups) {
        const [o] = await target.fetchOffsets({ groupId: g, topics: [REMOTE] });
        if (!o || o.partitions[0].offset !== '101') return false;
      }
      return true;
    }, { timeout: 90000, what: 'every group at 101 on the target' });
    const [ga, gb] = [committed('a'), committed('b')];
    for (const g of groups) assert.equal(Number(ga.has(g)) + Number(gb.has(g)), 1, `${g} committed on the target by exactly one instance (a: ${ga.has(g)}, b: ${gb.has(g)})`);
    for (const g of ga) assert.ok(ca.has(g), `${g}: committed by its owner`);
    for (const g of gb) assert.ok(cb.has(g), `${g}: committed by its owner`);

    // b stops (a redeploy or a shutdown leaves the group): a takes every group, its status as one instance's
    await nrs.stop('b');
    await env.eventually(() => /\d/.test(status('a', 'cp').text || '') && !/instances/.test(status('a', 'cp').text || ''), { timeout: 60000, what: `a alone, its status without a share (${status('a', 'cp').text})` });
    const more = Array.from({ length: 20 }, (_, i) => `${P}-h${i}`);
    await commitAll(more, 5);
    await env.eventually(() => more.every((g) => checkpointed('a', '5').has(g)), { timeout: 30000, what: 'a checkpointing every new group alone' });

    // c's group filter differs: kept out, says which setting, writes nothing
    const c = await start('c', `${P}-h.*`);
    await env.eventually(() => /setting groups differs from the other instances/.test(status('c', 'cp').text || ''), { timeout: 90000, what: `c kept out, naming the setting (${JSON.stringify(status('c', 'cp'))})` });
    assert.equal(status('c', 'cp').fill, 'yellow');
    // the status may cut long values; the log holds both
    assert.match(c.nr.log, new RegExp(`kept out of the flow the other Node-RED instances share.*setting groups differs from the other instances: ${P}-h\\.\\* vs ${P}-\\.\\*`));
    const last = Array.from({ length: 5 }, (_, i) => `${P}-k${i}`);
    await commitAll(last, 5);
    await env.eventually(() => last.every((g) => checkpointed('a', '5').has(g)), { timeout: 60000, what: 'a checkpointing new groups while c is kept out' });
    assert.deepEqual(lines('c', 'checkpoints').flatMap((p) => p.checkpoints), [], 'c wrote no checkpoint');
    assert.deepEqual(lines('c', 'commits').flatMap((p) => p.written), [], 'c committed nothing on the target');
    assert.doesNotMatch(status('a', 'cp').text, /instances/, 'a still alone among the instances that agree');
    assert.ok(a.nr.log.length > 0);
  });
});
