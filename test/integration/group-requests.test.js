'use strict';
/**
 * The batched group requests against the real brokers (Kafka 4.1.1 and 3.9.1): OffsetFetch v8
 * for many groups per request, FindCoordinator v4 for many coordinators per request, ListGroups
 * v4/v5 with every group's state, counted with the clients' `requests` tallies.
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const { AdminOffsetCommitter, GroupOffsetFetcher, GROUPS_PER_OFFSET_FETCH, fetchCommittedOffsets, KEYS_PER_FIND_COORDINATOR } = require('../../dist/kafka/group-client');
const { listConsumerGroups } = require('../../dist/kafka/group-listing');
const { mapLimit } = require('../../dist/core/worker-pool');

const N = 1200;

describe('batched group requests (real brokers)', function () {
  this.timeout(120000);
  const prefix = env.unique('many');
  const groups = Array.from({ length: N }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);
  let topic;
  let admin;
  const clients = [];
  const client = (C) => {
    const c = new C(env.kafka('target'));
    clients.push(c);
    return c;
  };

  before(async () => {
    admin = await env.admin('target');
    topic = env.unique('many-topic');
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    const committer = client(AdminOffsetCommitter);
    // group i: partition 0 at i, partition 1 at i + 1 with metadata
    await mapLimit(groups, 32, async (g) => {
      const i = Number(g.slice(-4));
      const r = await committer.commit(g, [{ topic, partition: 0, offset: BigInt(i) }, { topic, partition: 1, offset: BigInt(i + 1), metadata: `m${i}` }]);
      assert.ok(r.ok, `${g}: ${r.message}`);
    });
  });
  after(async () => {
    while (clients.length) await clients.pop().close();
  });

  it(`fetches ${N} groups' offsets in a few requests, each exactly, and a second time without coordinator lookups`, async () => {
    const fetcher = client(GroupOffsetFetcher);
    const missing = env.unique('never-committed');
    const { offsets, failed } = await fetcher.fetchMany([...groups, missing]);
    assert.deepEqual([...failed], []);
    assert.equal(offsets.size, N + 1);
    assert.deepEqual(offsets.get(missing), []);
    for (const g of groups) {
      const i = Number(g.slice(-4));
      const got = offsets.get(g).map((o) => `${o.topic}/${o.partition}=${o.offset}|${o.metadata}`).sort();
      assert.deepEqual(got, [`${topic}/0=${i}|`, `${topic}/1=${i + 1}|m${i}`], g);
    }
    // one broker per cluster in the tests: one coordinator, so the chunking alone sets the count
    assert.equal(fetcher.requests.FindCoordinator, Math.ceil((N + 1) / KEYS_PER_FIND_COORDINATOR));
    assert.equal(fetcher.requests.OffsetFetch, Math.ceil((N + 1) / GROUPS_PER_OFFSET_FETCH));
    // the same answers as kafkajs's own per-group fetch
    for (const g of [groups[0], groups[N - 1]]) {
      const kafkajs = (await fetchCommittedOffsets(admin, g)).map((o) => `${o.topic}/${o.partition}=${o.offset}|${o.metadata}`).sort();
      const ours = offsets.get(g).map((o) => `${o.topic}/${o.partition}=${o.offset}|${o.metadata}`).sort();
      assert.deepEqual(ours, kafkajs);
    }
    const before = { ...fetcher.requests };
    const again = await fetcher.fetchMany(groups);
    assert.equal(again.offsets.size, N);
    assert.equal(fetcher.requests.FindCoordinator, before.FindCoordinator, 'coordinators are remembered');
    assert.equal(fetcher.requests.OffsetFetch - before.OffsetFetch, Math.ceil(N / GROUPS_PER_OFFSET_FETCH));
    // fetch(group) still works, and agrees
    assert.deepEqual(
      (await fetcher.fetch(groups[5])).map((o) => `${o.topic}/${o.partition}=${o.offset}`).sort(),
      [`${topic}/0=5`, `${topic}/1=6`],
    );
  });

  it('a remembered coordinator that is gone is looked up again; the groups are answered', async () => {
    const fetcher = client(GroupOffsetFetcher);
    await fetcher.fetchMany(groups.slice(0, 3));
    // a coordinator id no broker has (a broker that left the cluster)
    for (const g of groups.slice(0, 3)) fetcher.coordinators.set(g, 987654);
    const { offsets, failed } = await fetcher.fetchMany(groups.slice(0, 3));
    assert.deepEqual([...failed], []);
    assert.equal(offsets.get(groups[2]).find((o) => o.partition === 0).offset, 2n);
  });

  it('lists every group with its state in one ListGroups per broker', async () => {
    const stable = env.unique('stable-group');
    const consumer = env.kafka('target').consumer({ groupId: stable });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic });
      await consumer.run({ eachMessage: async () => undefined });
      const fetcher = client(GroupOffsetFetcher);
      const states = await env.eventually(async () => {
        const s = await fetcher.listGroupStates();
        return s.get(stable)?.state === 'Stable' ? s : null;
      }, { what: `${stable} listed as Stable` });
      const brokers = (await admin.describeCluster()).brokers.length;
      assert.ok(fetcher.requests.ListGroups >= brokers);
      const perCall = brokers;
      const n = fetcher.requests.ListGroups;
      const again = await fetcher.listGroupStates();
      assert.equal(fetcher.requests.ListGroups - n, perCall, 'one ListGroups per broker');
      // nothing changed in between (the same answers, byte for byte): the same map, decoded once
      const still = await fetcher.listGroupStates();
      assert.equal(still, again, 'an unchanged listing is the last map');
      assert.equal(await listConsumerGroups(fetcher), await listConsumerGroups(fetcher), 'and the same names');
      // two callers at once (a cluster's checkpoint and group-offset nodes): one listing in flight, shared
      const before = fetcher.requests.ListGroups;
      const [x, y] = await Promise.all([fetcher.listGroupStates(), fetcher.listGroupStates()]);
      assert.equal(x, y);
      assert.equal(fetcher.requests.ListGroups - before, perCall, 'one ListGroups per broker for both');
      // a change is seen: a new group listed
      const added = env.unique('added-group');
      const late = env.kafka('target').consumer({ groupId: added });
      await late.connect();
      try {
        await late.subscribe({ topic });
        await late.run({ eachMessage: async () => undefined });
        const seen = await env.eventually(async () => {
          const s = await fetcher.listGroupStates();
          return s.has(added) ? s : null;
        }, { what: `${added} listed` });
        assert.notEqual(seen, again, 'a changed listing is a new map');
        assert.equal(seen.get(stable), states.get(stable), 'whose unchanged entries keep their objects');
      } finally {
        await late.disconnect();
      }
      for (const g of groups) assert.equal(states.get(g)?.state, 'Empty', g);
      assert.equal(states.get(stable).protocolType, 'consumer');
      if (process.env.KAFKA_VERSION?.startsWith('4.')) assert.equal(states.get(stable).type, 'classic');
      // listConsumerGroups gives the same ids from our listing as from kafkajs's
      const ours = await listConsumerGroups(fetcher);
      for (const g of [...groups, stable]) assert.ok(ours.includes(g), g);
      const theirs = await listConsumerGroups(admin);
      assert.deepEqual(ours.filter((g) => g.startsWith(prefix)), theirs.filter((g) => g.startsWith(prefix)));
    } finally {
      await consumer.disconnect();
    }
  });
});
