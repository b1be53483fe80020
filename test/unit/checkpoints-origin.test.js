'use strict';
/** core/checkpoints-origin: checkpoints messages of another replication flow are told from ours (issue 26). */
const assert = require('node:assert/strict');
const { foreignCheckpointsOrigin } = require('../../dist/core/checkpoints-origin');

const ours = { sourceCluster: 'source', targetCluster: 'target', checkpointsTopic: 'source.checkpoints.internal' };

describe('checkpoints origin (core/checkpoints-origin)', function () {
  it('takes a message of our replication flow, and one that does not say where it comes from', function () {
    assert.equal(foreignCheckpointsOrigin({ latest: {}, ...ours }, ours), null);
    assert.equal(foreignCheckpointsOrigin({ latest: {} }, ours), null, 'a message made by hand without the fields');
    assert.equal(foreignCheckpointsOrigin({ latest: {}, sourceCluster: 'source', checkpointsTopic: undefined }, ours), null);
    assert.equal(foreignCheckpointsOrigin(null, ours), null);
  });

  it('refuses a message whose sourceCluster, targetCluster or checkpointsTopic is another flow\'s, naming the field', function () {
    assert.deepEqual(foreignCheckpointsOrigin({ ...ours, sourceCluster: 'east' }, ours), { field: 'sourceCluster', got: 'east', expected: 'source' });
    assert.deepEqual(foreignCheckpointsOrigin({ ...ours, targetCluster: 'west' }, ours), { field: 'targetCluster', got: 'west', expected: 'target' });
    assert.deepEqual(
      foreignCheckpointsOrigin({ ...ours, checkpointsTopic: 'east.checkpoints.internal' }, ours),
      { field: 'checkpointsTopic', got: 'east.checkpoints.internal', expected: 'source.checkpoints.internal' },
    );
    // the reverse flow of the same two clusters (target -> source) is another flow
    assert.equal(foreignCheckpointsOrigin({ sourceCluster: 'target', targetCluster: 'source', checkpointsTopic: 'target.checkpoints.internal' }, ours)?.field, 'sourceCluster');
  });

  it('a value that is not a string is another flow\'s too, shown as JSON and cut short', function () {
    assert.deepEqual(foreignCheckpointsOrigin({ ...ours, targetCluster: 5 }, ours), { field: 'targetCluster', got: '5', expected: 'target' });
    assert.deepEqual(foreignCheckpointsOrigin({ ...ours, sourceCluster: null }, ours), { field: 'sourceCluster', got: 'null', expected: 'source' });
    const long = foreignCheckpointsOrigin({ ...ours, checkpointsTopic: 'x'.repeat(100000) }, ours);
    assert.equal(long?.field, 'checkpointsTopic');
    assert.ok(long && long.got.length < 200, `cut: ${long?.got.length}`);
    assert.equal(foreignCheckpointsOrigin({ ...ours, sourceCluster: 'Source' }, ours)?.got, 'Source', 'aliases are compared exactly');
  });
});
