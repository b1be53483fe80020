'use strict';

const assert = require('node:assert/strict');
const { decideGroupOffsetSync, isWritableGroupState } = require('../../dist/core/group-offset-sync');

function cp(group, topic, partition, up, down, metadata = '') {
  return { group, topic, partition, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down), metadata };
}
function at(topic, partition, o) {
  return { topic, partition, offset: o === null ? null : BigInt(o) };
}
function write(topic, partition, o, metadata = '') {
  return { topic, partition, offset: BigInt(o), metadata };
}

describe('decideGroupOffsetSync (MirrorCheckpointTask.syncGroupOffset, with our safety rules)', function () {
  describe('upstream syncGroupOffset cases', function () {
    it('writes a checkpoint ahead of the target offset (consumer1 100 -> 101, consumer2 50 -> 51)', function () {
      const d1 = decideGroupOffsetSync({
        group: 'consumer1',
        checkpoints: [cp('consumer1', 'topic1', 0, 200, 101, 'm1')],
        targetGroupState: 'Empty',
        targetOffsets: [at('topic1', 0, 100)],
      });
      assert.equal(d1.action, 'write');
      assert.deepEqual(d1.offsets, [write('topic1', 0, 101, 'm1')]);
      assert.deepEqual(d1.skipped, []);
      assert.equal(d1.reason, 'the group is Empty: writing 1 partition offset');
      const d2 = decideGroupOffsetSync({
        group: 'consumer2',
        checkpoints: [cp('consumer2', 'topic2', 0, 100, 51)],
        targetGroupState: 'Empty',
        targetOffsets: [at('topic2', 0, 50)],
      });
      assert.deepEqual(d2.offsets, [write('topic2', 0, 51)]);
    });

    it('writes when the target offset is null or -1', function () {
      for (const target of [null, -1]) {
        const d = decideGroupOffsetSync({
          group: 'consumer1',
          checkpoints: [cp('consumer1', 'topic1', 0, 200, 101)],
          targetGroupState: 'Empty',
          targetOffsets: [at('topic1', 0, target)],
        });
        assert.equal(d.action, 'write', `target ${target}`);
        assert.deepEqual(d.offsets, [write('topic1', 0, 101)]);
      }
    });

    it('writes a partition the target group has no entry for', function () {
      const d = decideGroupOffsetSync({
        group: 'g',
        checkpoints: [cp('g', 'a', 0, 1, 10), cp('g', 'a', 1, 1, 20)],
        targetGroupState: 'Empty',
        targetOffsets: [at('a', 0, 10)],
      });
      assert.deepEqual(d.offsets, [write('a', 1, 20)]);
      assert.deepEqual(d.skipped.map((s) => [s.topic, s.partition, s.code]), [['a', 0, 'up-to-date']]);
    });

    it('never moves a target offset backwards, and has nothing to write for an equal one', function () {
      const d = decideGroupOffsetSync({
        group: 'g',
        checkpoints: [cp('g', 'a', 0, 1, 100), cp('g', 'a', 1, 1, 100)],
        targetGroupState: 'Empty',
        targetOffsets: [at('a', 0, 150), at('a', 1, 100)],
      });
      assert.equal(d.action, 'skip');
      assert.deepEqual(d.offsets, []);
      assert.deepEqual(
        d.skipped.map((s) => [s.partition, s.code, s.checkpointOffset, s.targetOffset, s.reason]),
        [
          [0, 'target-ahead', 100n, 150n, 'target offset 150 is ahead of 100; it is never moved backwards'],
          [1, 'up-to-date', 100n, 100n, 'target offset is already 100'],
        ],
      );
      assert.equal(d.reason, 'nothing to write: the group is Empty, and no partition needs a newer offset (2 skipped)');
    });

    it('writes every partition of a group that does not exist on the target (or is Dead)', function () {
      for (const state of [undefined, 'Dead', 'DEAD']) {
        const d = decideGroupOffsetSync({
          group: 'g',
          checkpoints: [cp('g', 'a', 0, 1, 10), cp('g', 'b', 3, 1, 30)],
          targetGroupState: state,
          targetOffsets: [],
        });
        assert.equal(d.action, 'write', String(state));
        assert.deepEqual(d.offsets, [write('a', 0, 10), write('b', 3, 30)]);
      }
      const d = decideGroupOffsetSync({
        group: 'g',
        checkpoints: [cp('g', 'a', 0, 1, 10)],
        targetGroupState: undefined,
      });
      assert.equal(d.reason, 'the group does not exist on the target: writing 1 partition offset');
    });

    it('deliberately differs from MM2: no rewind of a Dead group either', function () {
      // MM2 writes all partitions of a group it did not find EMPTY, with no rewind check.
      const d = decideGroupOffsetSync({
        group: 'g',
        checkpoints: [cp('g', 'a', 0, 1, 10), cp('g', 'a', 1, 1, 30)],
        targetGroupState: 'Dead',
        targetOffsets: [at('a', 0, 50), at('a', 1, 20)],
      });
      assert.deepEqual(d.offsets, [write('a', 1, 30)]);
      assert.deepEqual(d.skipped.map((s) => [s.partition, s.code]), [[0, 'target-ahead']]);
    });
  });

  describe('active groups', function () {
    for (const state of ['Stable', 'PreparingRebalance', 'COMPLETING_REBALANCE', 'Unknown', 'Assigning', 'Reconciling', '']) {
      it(`leaves a group in state '${state}' untouched`, function () {
        const d = decideGroupOffsetSync({
          group: 'g',
          checkpoints: [cp('g', 'a', 0, 1, 10), cp('g', 'a', 1, 1, 11)],
          targetGroupState: state,
          targetOffsets: [at('a', 0, 1)],
        });
        assert.equal(d.action, 'skip');
        assert.deepEqual(d.offsets, []);
        assert.ok(d.reason.startsWith(`target group is ${state || '(empty state)'}, not Empty or Dead`), d.reason);
        assert.deepEqual(d.skipped.map((s) => [s.partition, s.code, s.checkpointOffset]), [
          [0, 'group-active', 10n],
          [1, 'group-active', 11n],
        ]);
      });
    }

    it('classifies states case-insensitively', function () {
      assert.equal(isWritableGroupState(undefined), true);
      assert.equal(isWritableGroupState('Empty'), true);
      assert.equal(isWritableGroupState('EMPTY'), true);
      assert.equal(isWritableGroupState('empty'), true);
      assert.equal(isWritableGroupState('Dead'), true);
      assert.equal(isWritableGroupState('Stable'), false);
      assert.equal(isWritableGroupState('Unknown'), false);
      assert.equal(isWritableGroupState(''), false);
    });
  });

  describe('target log end and topic existence', function () {
    it('clamps a checkpoint beyond the log end to the log end and reports it', function () {
      const d = decideGroupOffsetSync({
        group: 'g',
        checkpoints: [cp('g', 'a', 0, 500, 150, 'm'), cp('g', 'a', 1, 10, 5)],
        targetGroupState: 'Empty',
        targetOffsets: [],
        targetEndOffsets: [at('a', 0, 120), at('a', 1, 9)],
      });
      assert.equal(d.action, 'write');
      assert.deepEqual(d.offsets, [write('a', 0, 120, 'm'), write('a', 1, 5)]);
      assert.deepEqual(d.adjusted, [
        {
          topic: 'a',
          partition: 0,
          checkpointOffset: 150n,
          offset: 120n,
          endOffset: 120n,
          reason: 'checkpoint 150 is beyond the target log end 120; writing 120 so no record written to the target from now on is skipped',
        },
      ]);
      assert.equal(d.reason, 'the group is Empty: writing 2 partition offsets (1 clamped to the log end)');
    });

    it('applies never-backwards to the clamped value', function () {
      const d = decideGroupOffsetSync({
        group: 'g',
        checkpoints: [cp('g', 'a', 0, 500, 150), cp('g', 'a', 1, 500, 150), cp('g', 'a', 2, 500, 150)],
        targetGroupState: 'Empty',
        targetOffsets: [at('a', 0, 120), at('a', 1, 130), at('a', 2, 110)],
        targetEndOffsets: [at('a', 0, 120), at('a', 1, 120), at('a', 2, 120)],
      });
      assert.deepEqual(d.offsets, [write('a', 2, 120)]);
      assert.deepEqual(
        d.skipped.map((s) => [s.partition, s.code, s.endOffset, s.reason]),
        [
          [0, 'up-to-date', 120n, 'target offset is already 120 (checkpoint 150 clamped to the target log end 120)'],
          [
            1,
            'target-ahead',
            120n,
            'target offset 130 is ahead of 120 (checkpoint 150 clamped to the target log end 120), even beyond the ' +
              'target log end 120; it is never moved backwards',
          ],
        ],
      );
      assert.equal(d.adjusted.length, 1);
    });

    it('skips partitions whose topic or partition does not exist on the target', function () {
      const d = decideGroupOffsetSync({
        group: 'g',
        checkpoints: [cp('g', 'gone', 0, 1, 10), cp('g', 'a', 7, 1, 10), cp('g', 'a', 0, 1, 10)],
        targetGroupState: 'Empty',
        targetOffsets: [],
        targetEndOffsets: [at('a', 0, 100)],
      });
      assert.deepEqual(d.offsets, [write('a', 0, 10)]);
      assert.deepEqual(
        d.skipped.map((s) => [s.topic, s.partition, s.code, s.reason]),
        [
          ['gone', 0, 'topic-missing-on-target', 'topic gone does not exist on the target cluster'],
          ['a', 7, 'partition-missing-on-target', 'partition 7 of topic a does not exist on the target cluster'],
        ],
      );
      assert.equal(d.reason, 'the group is Empty: writing 1 partition offset (2 skipped)');
    });

    it('does not check existence when no end offsets are given', function () {
      const d = decideGroupOffsetSync({
        group: 'g',
        checkpoints: [cp('g', 'gone', 0, 1, 10)],
        targetGroupState: 'Empty',
      });
      assert.deepEqual(d.offsets, [write('gone', 0, 10)]);
      assert.deepEqual(d.adjusted, []);
    });
  });

  describe('inputs', function () {
    it('accepts Maps whose values are the entries', function () {
      const d = decideGroupOffsetSync({
        group: 'g',
        checkpoints: [cp('g', 'a', 0, 1, 10), cp('g', 'a', 1, 1, 10)],
        targetGroupState: 'Empty',
        targetOffsets: new Map([['a-0', at('a', 0, 12)]]),
        targetEndOffsets: new Map([
          ['a-0', at('a', 0, 100)],
          ['a-1', at('a', 1, 100)],
        ]),
      });
      assert.deepEqual(d.offsets, [write('a', 1, 10)]);
      assert.deepEqual(d.skipped.map((s) => s.code), ['target-ahead']);
    });

    it('keeps the last of duplicate checkpoints for a partition', function () {
      const d = decideGroupOffsetSync({
        group: 'g',
        checkpoints: [cp('g', 'a', 0, 1, 10), cp('g', 'a', 0, 2, 20)],
        targetGroupState: 'Empty',
      });
      assert.deepEqual(d.offsets, [write('a', 0, 20)]);
    });

    it('skips when the group has no checkpoints', function () {
      const d = decideGroupOffsetSync({ group: 'g', checkpoints: [], targetGroupState: 'Empty' });
      assert.equal(d.action, 'skip');
      assert.equal(d.reason, 'no checkpoints for this group yet');
    });

    it('refuses checkpoints of another group and flags negative checkpoint offsets', function () {
      assert.throws(
        () => decideGroupOffsetSync({ group: 'g', checkpoints: [cp('h', 'a', 0, 1, 1)], targetGroupState: 'Empty' }),
        /group 'h' passed for group 'g'/,
      );
      const d = decideGroupOffsetSync({ group: 'g', checkpoints: [cp('g', 'a', 0, 1, -1)], targetGroupState: 'Empty' });
      assert.equal(d.action, 'skip');
      assert.deepEqual(d.skipped.map((s) => s.code), ['invalid-checkpoint']);
    });
  });
});
