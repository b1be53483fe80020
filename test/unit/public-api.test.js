'use strict';
/** The package's main entry exposes the documented library API and it behaves as MM2 does. */
const assert = require('node:assert/strict');
const api = require('../../dist');

describe('public API (require("@kafka-mm2/node-red"))', function () {
  it('exports every documented function and class', function () {
    for (const name of [
      'encodeOffsetSync', 'decodeOffsetSync', 'encodeCheckpoint', 'decodeCheckpoint', 'encodeHeartbeat', 'decodeHeartbeat',
      'createReplicationPolicy', 'createGroupFilter', 'createTopicFilter', 'parseConnectorConfig', 'formatConnectorConfig',
      'renameTopicPartition', 'isMoreRecent', 'checkpointsForGroup', 'decideGroupOffsetSync', 'shouldReplicateTopic',
      'readPastedConfigs', 'placeholderReason', 'buildFlowFromText', 'nodeRedFlowFromImport',
    ]) {
      assert.equal(typeof api[name], 'function', name);
    }
    for (const name of ['OffsetSyncStore', 'MalformedRecordError', 'ConfigError', 'CheckpointStore', 'OffsetSyncWriter', 'PartitionState']) {
      assert.equal(typeof api[name], 'function', name);
    }
  });

  it('encodes the spec checkpoint example byte for byte and decodes it back', function () {
    const cp = { group: 'group-1', topic: 'topic-2', partition: 3, upstreamOffset: 4n, downstreamOffset: 5n, metadata: 'metadata-6' };
    const { key, value } = api.encodeCheckpoint(cp);
    assert.equal(key.toString('hex'), '000767726f75702d310007746f7069632d3200000003');
    assert.equal(value.toString('hex'), '0000000000000000000400000000000000050' + '00a6d657461646174612d36');
    assert.deepEqual(api.decodeCheckpoint(key, value), cp);
    assert.throws(() => api.decodeCheckpoint(key, value.subarray(0, 5)), api.MalformedRecordError);
  });

  it('translates like MM2 (testOffsetTranslation) through the store', function () {
    const store = new api.OffsetSyncStore({ keepHistoryOnLoad: false });
    store.markLoaded();
    store.apply({ topic: 't', partition: 0, upstreamOffset: 100n, downstreamOffset: 200n });
    assert.equal(store.translate('t', 0, 150n), 201n);
    store.apply({ topic: 't', partition: 0, upstreamOffset: 150n, downstreamOffset: 251n });
    assert.equal(store.translate('t', 0, 150n), 251n);
    assert.equal(store.translate('t', 0, 5n), -1n);
    assert.equal(store.translate('u', 0, 5n), undefined);
  });

  it('parses the Google Cloud checkpoint connector YAML and names every bad property', function () {
    const s = api.parseConnectorConfig('source.cluster.alias: "source"\ngroups: "orders-.*,billing"\nemit.checkpoints.interval.seconds: "10"\n');
    assert.equal(s['emit.checkpoints.interval.seconds'], 10);
    assert.equal(s['sync.group.offsets.interval.seconds'], 60);
    const policy = api.createReplicationPolicy({ 'source.cluster.alias': 'source' });
    assert.equal(policy.checkpointsTopic('source'), 'source.checkpoints.internal');
    assert.throws(
      () => api.parseConnectorConfig({ 'source.cluster.alias': 's', groups: '(', 'emit.checkpoints.interval.seconds': 'x' }),
      (e) => e instanceof api.ConfigError && /groups/.test(e.message) && /emit\.checkpoints\.interval\.seconds/.test(e.message),
    );
  });
});
