'use strict';
/**
 * The readiness of every group of a flow that runs in two real Node-RED processes (issue 25,
 * item 5: engines/share-board, core/share-summaries): each instance's coverage output (mm2-checkpoint
 * output 2, to a file of its own) shows all 20 groups, each with the instance that covers it
 * (`host:pid`), the other's groups read from the summaries published to
 * `mm2-readiness.<source>.internal` on the target. After kill -9 of one, its groups are first
 * not covered (no live instance: its summary expired) or already taken over, then covered by the
 * survivor. A graceful stop tombstones the instance's summary.
 */
const assert = require('node:assert/strict');
const os = require('node:os');
const env = require('../harness/env');
const { nodeRedInstances, seedSharedFlow, sharedFlowBase } = require('../harness/instances');

describe('share readiness: every instance of a shared flow shows every group with the instance covering it (real brokers)', function () {
  this.timeout(420000);
  const S = env.unique('srs');
  const T = env.unique('srt');
  const P = env.unique('srg');
  const TOPIC = env.unique('sr-orders');
  const REMOTE = `${S}.${TOPIC}`;
  const SYNCS = `mm2-offset-syncs.${T}.internal`;
  const SUMMARIES = `mm2-readiness.${S}.internal`;
  const nrs = nodeRedInstances('mm2-share-rd-');
  let committer;

  function flow(name) {
    return [
      ...sharedFlowBase(S, T, 'share'),
      {
        id: 'cp', type: 'mm2-checkpoint', z: 'tab', replication: 'rep', groups: `${P}-.*`, groupsExclude: '', topics: TOPIC, topicsExclude: '',
        emitCheckpointsIntervalSeconds: '2', refreshGroupsIntervalSeconds: '2', sourceOffsets: 'auto', wires: [[], ['cov-out']],
      },
      nrs.fileNode(name, 'cov-out', 'coverage'),
    ];
  }

  /** @type {Record<string, string>} instance -> its name as its coverage says it */
  const ids = {};
  async function start(name) {
    const i = await nrs.start(name, flow(name));
    // the instance's name as its coverage says it: the host name and the Node-RED process's pid
    ids[name] = `${os.hostname()}:${i.nr.process.pid}`;
    return { id: ids[name] };
  }

  /** The last coverage message of an instance (null: none yet). */
  const lastCoverage = (name) => nrs.lines(name, 'coverage').at(-1) ?? null;
  /** group -> [verdict, why, coveredBy] in an instance's last readiness. */
  function readinessOf(name) {
    const p = lastCoverage(name);
    if (!p || !p.readiness) return new Map();
    return new Map(p.readiness.groups.map((g) => [g.group, [g.verdict, g.why, g.coveredBy]]));
  }
  const status = nrs.status;
  const logs = nrs.logs;

  before(async function () {
    committer = await seedSharedFlow({ topic: TOPIC, syncs: SYNCS, remote: REMOTE, warmGroup: `warm-${P}` });
  });

  after(async function () {
    if (this.currentTest && this.currentTest.state === 'failed') console.log(logs());
    await nrs.stopAll();
    if (committer) await committer.close();
  });

  it('both instances show all 20 groups with the right covering instance; after kill -9 of one its groups go to the survivor; a graceful stop tombstones the summary', async function () {
    const groups = Array.from({ length: 20 }, (_, i) => `${P}-g${i}`);
    const a = await start('a');
    // alone: the coverage output as one instance always sent it (no coveredBy, no topic of summaries)
    await env.eventually(() => lastCoverage('a') !== null, { timeout: 90000, what: 'a coverage message of a alone' });
    const alone = lastCoverage('a');
    assert.equal(alone.readiness.instance, undefined, 'alone: no instance named');
    assert.ok(!(await (await env.admin('target')).listTopics()).includes(SUMMARIES), 'alone: no summaries topic');

    const b = await start('b');
    await env.eventually(() => /2 instances/.test(status('a', 'cp').text || '') && /2 instances/.test(status('b', 'cp').text || ''), { timeout: 90000, what: 'both checkpoint nodes showing a share of 2 instances' });
    for (const g of groups) assert.equal((await committer.commit(g, [{ topic: TOPIC, partition: 0, offset: 5n }])).ok, true, g);

    // each instance's readiness: all 20 groups, ready, each covered by one of the two, the same one in both views
    const both = new Set([a.id, b.id]);
    const complete = (name) => {
      const r = readinessOf(name);
      return groups.every((g) => r.has(g) && r.get(g)[0] === 'ready' && both.has(r.get(g)[2]));
    };
    try {
      await env.eventually(() => complete('a') && complete('b') && groups.every((g) => readinessOf('a').get(g)[2] === readinessOf('b').get(g)[2]), { timeout: 120000, what: 'both instances showing all 20 groups ready, covered by the same instance' });
    } catch (e) {
      throw new Error(`${e.message}:\na ${JSON.stringify([...readinessOf('a')])}\nb ${JSON.stringify([...readinessOf('b')])}`);
    }
    const owner = new Map([...readinessOf('a')].filter(([g]) => groups.includes(g)).map(([g, v]) => [g, v[2]]));
    const ofB = groups.filter((g) => owner.get(g) === b.id);
    assert.ok(ofB.length > 0 && ofB.length < 20, `each instance covers a share: b ${ofB.length} of 20`);
    for (const name of ['a', 'b']) {
      const p = lastCoverage(name);
      const me = ids[name];
      assert.equal(p.readiness.instance, me);
      // its own entries (group partitions) name it; its own groups are the ones it covers
      assert.ok(p.entries.length > 0 && p.entries.every((e) => e.coveredBy === me), `${name}: every entry names ${me}`);
      assert.deepEqual([...new Set(p.entries.map((e) => e.group))].filter((g) => groups.includes(g)).sort(), groups.filter((g) => owner.get(g) === me).sort());
      assert.deepEqual(p.readiness.instances.map((i) => [i.instance, i.live]).sort(), [[a.id, true], [b.id, true]].sort());
      assert.equal(p.readiness.ready, p.readiness.groups.filter((g) => g.verdict === 'ready').length);
    }

    // kill -9 b: its groups are first not covered by any live instance (its summary expired) or taken over, then a's
    const killedAt = Date.now();
    nrs.kill('b');
    let sawUncovered = false;
    await env.eventually(() => {
      const r = readinessOf('a');
      if (ofB.some((g) => r.get(g) && r.get(g)[2] === null && r.get(g)[1] === 'no-live-instance' && r.get(g)[0] === 'not-covered')) sawUncovered = true;
      return ofB.every((g) => r.get(g) && (r.get(g)[2] === a.id || (r.get(g)[2] === null && r.get(g)[1] === 'no-live-instance')));
    }, { timeout: 90000, what: `b's groups no longer covered by b in a's readiness (${JSON.stringify(ofB.map((g) => readinessOf('a').get(g)))})` });
    await env.eventually(() => {
      const r = readinessOf('a');
      if (ofB.some((g) => r.get(g) && r.get(g)[1] === 'no-live-instance')) sawUncovered = true;
      return groups.every((g) => r.get(g) && r.get(g)[0] === 'ready' && r.get(g)[2] === a.id);
    }, { timeout: 120000, what: `every group ready and covered by a (${JSON.stringify([...readinessOf('a')])})` });
    console.log(`      kill -9 of b: its ${ofB.length} groups ${sawUncovered ? 'first reported not covered (no live instance), then' : ''} covered by a ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill`);
    assert.equal(lastCoverage('a').readiness.instances.find((i) => i.instance === b.id)?.live ?? false, false, 'b no longer live');

    // a graceful stop of a tombstones its summary
    await nrs.stop('a');
    const target = await env.admin('target');
    const [cfg] = (await target.describeConfigs({ resources: [{ type: 2, name: SUMMARIES, configNames: ['cleanup.policy'] }], includeSynonyms: false })).resources;
    assert.equal(cfg.configEntries[0].configValue, 'compact');
    const consumer = env.kafka('target').consumer({ groupId: env.unique('sr-read') });
    const last = new Map();
    await consumer.connect();
    await consumer.subscribe({ topics: [SUMMARIES], fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void last.set(message.key.toString(), message.value) });
    try {
      await env.eventually(() => last.has(`${a.id}#0`) && last.get(`${a.id}#0`) === null, { timeout: 60000, what: `a tombstone of ${a.id}#0 in ${SUMMARIES}` });
      // b was killed: its summary stays until it expires for the readers
      assert.notEqual(last.get(`${b.id}#0`) ?? null, null, 'b (killed) left its summary');
    } finally {
      await consumer.disconnect();
    }
  });
});
