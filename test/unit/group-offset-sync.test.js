'use strict';

const assert = require('node:assert/strict');
const { activeGroupReason, decideGroupOffsetSync, isWritableGroupState, noteRewind } = require('../../dist/core/group-offset-sync');

function cp(group, topic, partition, up, down, metadata = '') {
  return { group, topic, partition, upstreamOffset: BigInt(up), downstreamOffset: BigInt(down), metadata };
}
function at(topic, partition, o) {
  return { topic, partition, offset: o === null ? null : BigInt(o), metadata: '' };
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

    it('activeGroupReason is the reason of the decision for a group with members (the writer reports it without deciding)', function () {
      for (const state of ['Stable', 'PreparingRebalance', 'Unknown', '', 'assigning']) {
        const d = decideGroupOffsetSync({ group: 'g', checkpoints: [{ group: 'g', topic: 't', partition: 0, upstreamOffset: 1n, downstreamOffset: 10n, metadata: '' }], targetGroupState: state });
        assert.equal(d.action, 'skip');
        assert.equal(activeGroupReason(state), d.reason, state);
      }
    });

    it('classifies states case-insensitively', function () {
      assert.equal(isWritableGroupState(undefined), true);
      assert.equal(isWritableGroupState('Empty'), true);
      assert.equal(isWritableGroupState('EMPTY'), true);
      assert.equal(isWritableGroupState('empty'), true);
      assert.equal(isWritableGroupState('Dead'), true);
      assert.equal(isWritableGroupState('Stable'), false);
      assert.equal(isWritableGroupState('Unknown'), false);
      assert.equal(isWritableGroupState(''), false);
      // asked again (answers kept by state) and past 64 distinct states: the same answers
      for (let i = 0; i < 100; i++) assert.equal(isWritableGroupState(`Stable${i}`), false);
      const states = { Empty: true, EMPTY: true, Dead: true, Stable: false, empty_: true, 'Preparing-Rebalance': false, 'D e_a-d': true };
      for (const [state, writable] of Object.entries(states)) {
        assert.equal(isWritableGroupState(state), writable, state);
        assert.equal(isWritableGroupState(state), writable, `${state} again`);
      }
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

  describe('rewinds of the group on the source (issue 26)', function () {
    const mark = (topic, partition, fromUp, fromDown) => ({ topic, partition, fromUpstream: BigInt(fromUp), fromDownstream: BigInt(fromDown) });
    function decide(extra) {
      return decideGroupOffsetSync({
        group: 'g',
        checkpoints: [cp('g', 't', 0, 400, 1400)],
        targetGroupState: 'Empty',
        targetOffsets: [at('t', 0, 2000)],
        targetEndOffsets: [{ topic: 't', partition: 0, offset: 3000n }],
        ...extra,
      });
    }

    it('noteRewind: a checkpoint with a lower upstream offset than the one before it marks a rewind; the mark stays until dropped', function () {
      const before = cp('g', 't', 0, 1000, 2000);
      const rewound = cp('g', 't', 0, 400, 1400);
      const m = noteRewind(before, rewound, undefined);
      assert.deepEqual(m, mark('t', 0, 1000, 2000));
      assert.equal(noteRewind(rewound, cp('g', 't', 0, 500, 1500), m), m, 'moving forward keeps the pending mark');
      assert.equal(noteRewind(before, cp('g', 't', 0, 1000, 1900), undefined), undefined, 'a lower translation without an upstream rewind is no rewind');
      assert.equal(noteRewind(undefined, rewound, undefined), undefined, 'the first checkpoint is no rewind');
      assert.deepEqual(noteRewind(cp('g', 't', 0, 500, 1500), cp('g', 't', 0, 100, 1100), m), mark('t', 0, 1000, 2000), 'rewound again: from the highest');
    });

    it('moves the target offset back to a deliberate rewind, for a memberless group, and reports it as rewound', function () {
      for (const state of ['Empty', 'Dead']) {
        const d = decide({ targetGroupState: state, rewinds: [mark('t', 0, 1000, 2000)], followRewinds: true });
        assert.equal(d.action, 'write', state);
        assert.deepEqual(d.offsets, [write('t', 0, 1400)]);
        assert.deepEqual(d.skipped, []);
        assert.equal(d.rewound.length, 1);
        assert.deepEqual(
          { ...d.rewound[0], reason: undefined },
          { topic: 't', partition: 0, targetOffset: 2000n, offset: 1400n, fromUpstream: 1000n, toUpstream: 400n, reason: undefined },
        );
        assert.match(d.rewound[0].reason, /rewound on the source from upstream 1000 to 400: target offset moved back from 2000 to 1400, once/);
        assert.match(d.reason, /1 moved back to follow a rewind on the source/);
      }
    });

    it('a translation that merely came out lower (no upstream rewind) never moves the group backwards', function () {
      const d = decide({ followRewinds: true });
      assert.equal(d.action, 'skip');
      assert.deepEqual(d.skipped.map((s) => s.code), ['target-ahead']);
      assert.deepEqual(d.rewound, []);
    });

    it("following rewinds off (MM2's behaviour): never backwards, and the rewind is named", function () {
      for (const followRewinds of [false, undefined]) {
        const d = decide({ rewinds: [mark('t', 0, 1000, 2000)], followRewinds });
        assert.equal(d.action, 'skip');
        assert.deepEqual(d.offsets, []);
        assert.deepEqual(d.skipped.map((s) => s.code), ['rewind-not-followed']);
        assert.match(d.skipped[0].reason, /rewound on the source from upstream 1000 to 400, but following rewinds is off/);
      }
    });

    it('a group with members is never touched, rewind or not', function () {
      const d = decide({ targetGroupState: 'Stable', rewinds: [mark('t', 0, 1000, 2000)], followRewinds: true });
      assert.equal(d.action, 'skip');
      assert.deepEqual(d.skipped.map((s) => s.code), ['group-active']);
      assert.deepEqual(d.rewound, []);
    });

    it('a target offset beyond where the pre-rewind checkpoint put it moved on on its own: not moved back', function () {
      const d = decide({ targetOffsets: [at('t', 0, 2500)], rewinds: [mark('t', 0, 1000, 2000)], followRewinds: true });
      assert.equal(d.action, 'skip');
      assert.deepEqual(d.skipped.map((s) => s.code), ['target-ahead']);
      assert.match(d.skipped[0].reason, /target offset 2500 is beyond 2000, where the checkpoint before the rewind put it/);
    });

    it('once: without the mark (dropped after the rewind was written) the never-backwards rule applies again', function () {
      const first = decide({ rewinds: [mark('t', 0, 1000, 2000)], followRewinds: true });
      assert.deepEqual(first.offsets, [write('t', 0, 1400)]);
      // the group later sits at 1400 on the target; a lower translation is not followed without a new rewind
      const later = decideGroupOffsetSync({
        group: 'g',
        checkpoints: [cp('g', 't', 0, 450, 1300)],
        targetGroupState: 'Empty',
        targetOffsets: [at('t', 0, 1400)],
        followRewinds: true,
      });
      assert.deepEqual(later.skipped.map((s) => s.code), ['target-ahead']);
    });

    it('a rewind whose translation is at or ahead of the target is an ordinary forward write', function () {
      const d = decide({ targetOffsets: [at('t', 0, 1000)], rewinds: [mark('t', 0, 1000, 2000)], followRewinds: true });
      assert.deepEqual(d.offsets, [write('t', 0, 1400)]);
      assert.deepEqual(d.rewound, []);
    });
  });
});
