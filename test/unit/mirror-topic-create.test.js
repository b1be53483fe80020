'use strict';
/**
 * The mirror creates a remote topic through the UNKNOWN_TOPIC_OR_PARTITION of the moment after a
 * creation (engines/mirror-topics createRemoteTopics): a broker not knowing the new topic yet, or
 * kafkajs's metadata refresh failing while another user of the shared admin asks for a topic
 * that is not there yet. Before, the topic refresh failed and the mirror node went red with
 * `cannot create source.orders on target: This server does not host this topic-partition`
 * while both clusters answered (seen on redeploys, issue 26, 8).
 */
const assert = require('node:assert/strict');
const { MirrorTopics } = require('../../dist/engines/mirror-topics');
const { createReplicationPolicy } = require('../../dist/core/replication-policy');
const { createConfigPropertyFilter } = require('../../dist/core/topic-sync');

const unknownTopic = () => Object.assign(new Error('This server does not host this topic-partition'), { name: 'KafkaJSProtocolError', type: 'UNKNOWN_TOPIC_OR_PARTITION' });

function connection(alias, admin) {
  return { alias, settings: { alias, bootstrapServers: ['h:9092'] }, admin: async () => admin, reportOk() {}, reportError: (e) => String(e.message) };
}

function mirrorTopics(target, events) {
  const source = {
    listTopics: async () => ['orders'],
    fetchTopicMetadata: async () => ({ topics: [{ name: 'orders', partitions: [{ partitionId: 0, leader: 1 }, { partitionId: 1, leader: 1 }] }] }),
    describeConfigs: async () => ({ resources: [{ resourceName: 'orders', configEntries: [] }] }),
  };
  return new MirrorTopics(/** @type {any} */ ({
    source: connection('source', source),
    target: connection('target', target),
    sourceAlias: 'source',
    targetAlias: 'target',
    policy: createReplicationPolicy({}),
    topicFilter: { accept: () => true },
    heartbeatsReplicationEnabled: true,
    replicationFactor: 1,
    configPropertyFilter: createConfigPropertyFilter(),
    onEvent: (e) => events.push(e),
    stopped: () => false,
    sleep: () => new Promise((r) => setImmediate(r)),
  }));
}

describe('mirror: creating a remote topic through the metadata of the moment after a creation', function () {
  it('a creation or a leader lookup that meets UNKNOWN_TOPIC_OR_PARTITION is tried again; the topic is created once and reported', async function () {
    let creates = 0;
    let lookups = 0;
    const created = [];
    const target = {
      listTopics: async () => [],
      describeCluster: async () => ({ brokers: [{ nodeId: 1 }] }),
      createTopics: async ({ topics, waitForLeaders }) => {
        creates++;
        // kafkajs refreshes its metadata before creating: that refresh fails the first time
        if (creates === 1) throw unknownTopic();
        // and its own wait for leaders meets the broker that does not know the topic yet
        if (waitForLeaders) throw unknownTopic();
        created.push(...topics.map((t) => t.topic));
        return true;
      },
      fetchTopicMetadata: async ({ topics }) => {
        if (++lookups === 1) throw unknownTopic();
        return { topics: topics.map((name) => ({ name, partitions: [{ partitionId: 0, leader: 1 }, { partitionId: 1, leader: 1 }] })) };
      },
    };
    const events = [];
    const selected = await mirrorTopics(target, events).refresh();
    assert.deepEqual(selected, [{ topic: 'orders', partitions: 2 }]);
    assert.deepEqual(created, ['source.orders']);
    assert.deepEqual(events, [{ type: 'topic-created', topic: 'source.orders', partitions: 2, alias: 'target' }]);
    assert.ok(lookups >= 2, 'the leaders were awaited after the creation');
  });

  it('any other failure of the creation still fails the refresh, naming the topic', async function () {
    const target = {
      listTopics: async () => [],
      describeCluster: async () => ({ brokers: [{ nodeId: 1 }] }),
      createTopics: async () => {
        throw Object.assign(new Error('Replication factor: 3 larger than available brokers: 1.'), { type: 'INVALID_REPLICATION_FACTOR' });
      },
      fetchTopicMetadata: async () => ({ topics: [] }),
    };
    await assert.rejects(mirrorTopics(target, []).refresh(), /cannot create source\.orders on target: Replication factor: 3 larger than available brokers: 1\./);
  });
});
