'use strict';
/**
 * The full-failover example in three real Node-RED processes (issue 25's first test): the flow as
 * a user imports it, with only its clusters (addresses, and aliases of this test's own so that its
 * topic names are its own) and its topic and group filters narrowed to this test's names, plus
 * file nodes on the checkpoint and group-offset outputs that tell which instance wrote what.
 *
 * The three instances split the work with no setting: the mirror's partitions (statuses "copying
 * k of n partitions, 3 instances", the k adding up to n, every record copied once), and the
 * groups: each group checkpointed by exactly one instance, its target offsets committed by that
 * same instance, the statuses' "x of 12 groups" adding up to 12, and every group's target offsets
 * translated from its source commits, never beyond them.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const env = require('../harness/env');
const { nodeRedInstances } = require('../harness/instances');
const { AdminOffsetCommitter } = require('../../dist/kafka/group-client');

const PARTITIONS = 4;
const RECORDS = 400;

describe('share example: the full-failover example in three Node-RED instances splits the mirror and the groups (real brokers)', function () {
  this.timeout(600000);
  const S = env.unique('sxs');
  const T = env.unique('sxt');
  const P = env.unique('sxg');
  const TOPIC = `${P}-orders`;
  const REMOTE = `${S}.${TOPIC}`;
  const nrs = nodeRedInstances('mm2-share-ex-');
  let committer;

  /** The example, its clusters and filters made this test's, file nodes added on two outputs. */
  function flow(name) {
    const f = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'full-failover.json'), 'utf8'));
    const tab = f.find((n) => n.type === 'tab').id;
    for (const n of f) {
      if (n.type === 'mm2-cluster' && n.alias === 'source') Object.assign(n, { alias: S, bootstrap: env.cluster('source').bootstrap });
      else if (n.type === 'mm2-cluster' && n.alias === 'target') Object.assign(n, { alias: T, bootstrap: env.cluster('target').bootstrap });
      else if (n.type === 'mm2-mirror') n.topics = TOPIC;
      else if (n.type === 'mm2-checkpoint') {
        Object.assign(n, { groups: `${P}-g.*`, topics: TOPIC });
        n.wires[0].push('cp-out');
      } else if (n.type === 'mm2-group-offsets') {
        n.groups = `${P}-g.*`;
        n.wires[0].push('go-out');
      }
    }
    return [...f, nrs.fileNode(name, 'cp-out', 'checkpoints', tab), nrs.fileNode(name, 'go-out', 'commits', tab)];
  }

  const checkpointedBy = (name) => new Set(nrs.lines(name, 'checkpoints').flatMap((p) => p.checkpoints.map((c) => c.group)));
  const committedBy = (name) => new Set(nrs.lines(name, 'commits').flatMap((p) => p.written.map((w) => w.group)));
  const text = (name, id) => nrs.status(name, id).text || '';
  const names = ['a', 'b', 'c'];

  before(async function () {
    const source = await env.admin('source');
    await source.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }], waitForLeaders: true });
    const producer = env.kafka('source').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    for (let p = 0; p < PARTITIONS; p++) {
      await producer.send({ topic: TOPIC, messages: Array.from({ length: RECORDS / PARTITIONS }, (_, i) => ({ partition: p, value: `p${p}-r${i}` })) });
    }
    await producer.disconnect();
    committer = new AdminOffsetCommitter(env.kafka('source'));
    // __consumer_offsets exists before the instances start (else each works alone at first)
    assert.equal((await committer.commit(`${P}-warm`, [{ topic: TOPIC, partition: 0, offset: 0n }])).ok, true);
    await env.eventually(async () => (await source.listTopics()).includes('__consumer_offsets'), { what: '__consumer_offsets on the source' });
  });

  after(async function () {
    await nrs.stopAll();
  });

  it('the mirror\'s partitions and the groups split among the three, each group written by one, nothing copied twice', async function () {
    for (const n of names) await nrs.start(n, flow(n));
    try {
      await env.eventually(() => names.every((n) => /, 3 instances/.test(text(n, 'mirror'))), { timeout: 180000, what: 'the three mirrors sharing' });
    } catch (e) {
      throw new Error(`${e.message}: ${names.map((n) => `${n}: ${text(n, 'mirror')}`).join(' | ')}\n${nrs.logs()}`);
    }
    // every record copied once: the remote topic holds exactly what the source holds
    const target = await env.admin('target');
    const remoteCount = async () => {
      let n = 0;
      for (const o of await target.fetchTopicOffsets(REMOTE).catch(() => [])) n += Number(o.high);
      return n;
    };
    await env.eventually(async () => (await remoteCount()) >= RECORDS, { timeout: 180000, what: `the ${RECORDS} records on the target` });
    // the mirror statuses' shares add up to the partitions they copy
    await env.eventually(() => {
      const m = names.map((n) => /copying (\d+) of (\d+) partitions, 3 instances/.exec(text(n, 'mirror')));
      return m.every(Boolean) && m.every((x) => x[2] === m[0][2]) && m.reduce((s, x) => s + Number(x[1]), 0) === Number(m[0][2]);
    }, { timeout: 120000, what: `the mirrors' shares adding up (${names.map((n) => text(n, 'mirror')).join(' | ')})` });
    assert.equal(await remoteCount(), RECORDS, 'no record copied twice');

    // 12 groups commit on the source: each translated and written on the target by one instance
    const groups = Array.from({ length: 12 }, (_, i) => `${P}-g${i}`);
    for (const g of groups) {
      const offsets = Array.from({ length: PARTITIONS }, (_, p) => ({ topic: TOPIC, partition: p, offset: BigInt(10 + p) }));
      await env.eventually(async () => (await committer.commit(g, offsets)).ok, { timeout: 30000, what: `commit of ${g}` });
    }
    const targetOffsets = async (g) => {
      const [entry] = await target.fetchOffsets({ groupId: g, topics: [REMOTE] });
      return new Map((entry ? entry.partitions : []).map((p) => [p.partition, Number(p.offset)]));
    };
    // translated: above 0 (past the first sync) and never beyond the source position (nothing skipped on a failover)
    await env.eventually(async () => {
      for (const g of groups) {
        const o = await targetOffsets(g);
        for (let p = 0; p < PARTITIONS; p++) if (!(o.get(p) >= 1)) return false;
      }
      return true;
    }, { timeout: 180000, what: 'every group\'s source commits translated on the target' });
    for (const g of groups) {
      const o = await targetOffsets(g);
      for (let p = 0; p < PARTITIONS; p++) assert.ok(o.get(p) <= 10 + p, `${g} partition ${p}: target offset ${o.get(p)} not beyond the source position ${10 + p}`);
    }
    const by = names.map((n) => checkpointedBy(n));
    for (const g of groups) {
      const writers = names.filter((_, i) => by[i].has(g));
      assert.equal(writers.length, 1, `${g} checkpointed by exactly one instance (${writers})`);
      assert.ok(committedBy(writers[0]).has(g), `${g}: its target offsets committed by its owner ${writers[0]}`);
      for (const other of names.filter((n) => n !== writers[0])) assert.equal(committedBy(other).has(g), false, `${g}: not committed by ${other}`);
    }
    await env.eventually(() => {
      const owned = names.map((n) => /^([\d,]+) of 12 groups/.exec(text(n, 'checkpoint')));
      return owned.every(Boolean) && owned.reduce((s, x) => s + Number(x[1]), 0) === 12;
    }, { timeout: 120000, what: `the checkpoint statuses adding up to 12 groups (${names.map((n) => text(n, 'checkpoint')).join(' | ')})` });
  });
});
