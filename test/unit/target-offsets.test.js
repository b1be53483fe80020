'use strict';
// TargetOffsets (core/target-offsets): the group-offset writer's memory of the target and the
// rules that use it, without a cluster (the writer's runs against an in-memory target are in
// group-offset-syncer.test.js, against real brokers in test/integration/mm2-group-offsets.test.js).

const assert = require('node:assert/strict');
const { TargetOffsets, FULL_TARGET_READ_EVERY_MS, DEFAULT_MIN_WRITE_INTERVAL_MS } = require('../../dist/core/target-offsets');

/** A checkpoint of group g on t-<partition>. */
const cp = (downstream, { partition = 0, upstream = downstream, group = 'g' } = {}) => ({
  group,
  topic: 't',
  partition,
  upstreamOffset: BigInt(upstream),
  downstreamOffset: BigInt(downstream),
  metadata: '',
});
const committed = (offset, partition = 0) => ({ topic: 't', partition, offset: offset === null ? null : BigInt(offset), metadata: '' });
const ends = (offset, partitions = 1) => Array.from({ length: partitions }, (_, partition) => ({ topic: 't', partition, offset: BigInt(offset) }));

describe('TargetOffsets: the target offsets as last read or written', () => {
  describe('up to date as known', () => {
    it('nothing known: not up to date (read it)', () => {
      const t = new TargetOffsets();
      assert.equal(t.upToDate('g', [cp(5)]), false);
      assert.equal(t.exactly('g', [cp(5)]), false);
    });

    it('a read at or ahead of every checkpoint is up to date; exactly only when every partition is equal', () => {
      const t = new TargetOffsets();
      t.read('g', [committed(5, 0), committed(9, 1)], 0);
      assert.equal(t.upToDate('g', [cp(5, { partition: 0 }), cp(7, { partition: 1 })]), true);
      assert.equal(t.exactly('g', [cp(5, { partition: 0 }), cp(7, { partition: 1 })]), false, 'partition 1 is ahead, not equal');
      assert.equal(t.exactly('g', [cp(5, { partition: 0 }), cp(9, { partition: 1 })]), true);
      assert.equal(t.upToDate('g', [cp(6, { partition: 0 })]), false, 'a checkpoint beyond the target: write');
      assert.equal(t.upToDate('g', [cp(1, { partition: 2 })]), false, 'a partition the target has no offset for');
      assert.equal(t.exactly('g', []), false, 'no checkpoints: nothing to call up to date');
    });

    it('a re-read finding the target as known keeps what was found at a version: exactly there again without the checkpoints; a read that differs, a write or a rewind drops it', () => {
      const t = new TargetOffsets();
      let made = 0;
      const cps = (list) => () => {
        made++;
        return list;
      };
      t.read('g', [committed(5, 0), committed(9, 1)], 0);
      assert.equal(t.upToDate('g', cps([cp(5, { partition: 0 }), cp(9, { partition: 1 })]), 7), true);
      assert.equal(made, 1);
      t.read('g', [committed(9, 1), committed(5, 0)], 1000); // the same offsets, another order
      assert.equal(t.exactly('g', cps([]), 7), true, 'found exactly there by upToDate at version 7: no checkpoints made');
      assert.equal(t.upToDate('g', cps([]), 7), true);
      assert.equal(made, 1);
      assert.equal(t.exactly('g', cps([cp(5, { partition: 0 }), cp(9, { partition: 1 })]), 8), true, 'another version: made and compared');
      assert.equal(made, 2);
      t.read('g', [committed(5, 0), committed(10, 1)], 2000); // moved on the target
      assert.equal(t.exactly('g', cps([cp(5, { partition: 0 }), cp(9, { partition: 1 })]), 8), false, 'what is known changed: compared again');
      assert.equal(made, 3);
      t.read('g', [committed(5, 0)], 3000); // a partition gone
      assert.equal(t.offsetOf('g', 't', 1), undefined);
      t.read('g', [committed(5, 0), committed(9, 1)], 4000);
      assert.equal(t.upToDate('g', cps([cp(5, { partition: 0 }), cp(7, { partition: 1 })]), 9), true);
      assert.equal(t.exactly('g', cps([cp(5, { partition: 0 }), cp(7, { partition: 1 })]), 9), false, 'up to date, not exactly (partition 1 ahead)');
      t.written('g', [{ topic: 't', partition: 1, offset: 12n }], undefined, 5000);
      assert.equal(t.upToDate('g', cps([cp(5, { partition: 0 }), cp(12, { partition: 1 })]), 9), true, 'a write drops what was found at version 9: compared again');
      t.noteCheckpoint(cp(12, { partition: 1 }), cp(3, { partition: 1 }));
      assert.equal(t.exactly('g', cps([cp(5, { partition: 0 }), cp(12, { partition: 1 })]), 9), false, 'a pending rewind: read and decided');
    });

    it('a partition read without a committed offset (null) is not known', () => {
      const t = new TargetOffsets();
      t.read('g', [committed(null)], 0);
      assert.equal(t.offsetOf('g', 't', 0), undefined);
      assert.equal(t.upToDate('g', [cp(0)]), false);
    });

    it('a pending rewind makes the group not up to date (it is read and decided)', () => {
      const t = new TargetOffsets();
      t.read('g', [committed(10)], 0);
      t.noteCheckpoint(cp(10), cp(4));
      assert.equal(t.upToDate('g', [cp(4)]), false);
      assert.equal(t.exactly('g', [cp(10)]), false);
    });

    it('a failed read or commit forgets what was known', () => {
      const t = new TargetOffsets();
      t.read('g', [committed(5)], 0);
      t.forget('g');
      assert.equal(t.upToDate('g', [cp(5)]), false);
      t.read('g', [committed(5)], 0);
      t.refused('g', false, undefined);
      assert.equal(t.upToDate('g', [cp(5)]), false);
    });

    it('the up-to-date report is the same frozen object while the state stays', () => {
      const t = new TargetOffsets();
      const a = t.upToDateSkip('g', 'Empty');
      assert.equal(t.upToDateSkip('g', 'Empty'), a);
      assert.ok(Object.isFrozen(a));
      assert.deepEqual({ ...a, reason: typeof a.reason }, { group: 'g', code: 'up-to-date', state: 'Empty', reason: 'string' });
      const b = t.upToDateSkip('g', undefined);
      assert.notEqual(b, a);
      assert.equal(b.state, undefined);
    });
  });

  describe('plan: what a run does with a group before reading it', () => {
    it('a group with members is neither read nor written, and what was known of it is forgotten', () => {
      const t = new TargetOffsets();
      t.read('g', [committed(5)], 0);
      for (const state of ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Unknown', 'Assigning']) {
        assert.equal(t.plan('g', state, 0, [cp(5)], false, 1), 'active', state);
      }
      assert.equal(t.offsetOf('g', 't', 0), undefined);
    });

    it('a partial run skips a group up to date as known, however old the read', () => {
      const t = new TargetOffsets();
      t.read('g', [committed(5)], 0);
      assert.equal(t.plan('g', 'Empty', 0, [cp(5)], false, 10 * FULL_TARGET_READ_EVERY_MS), 'up-to-date');
      assert.equal(t.plan('g', 'Empty', 0, [cp(6)], false, 1), 'read');
    });

    it('with the checkpoints\' version: found up to date again without making them while neither the version nor what is known changed', () => {
      const t = new TargetOffsets();
      t.read('g', [committed(5)], 0);
      let made = 0;
      const lazy = (...list) => () => {
        made++;
        return list;
      };
      assert.equal(t.plan('g', 'Empty', 0, lazy(cp(5)), false, 1, 7), 'up-to-date');
      assert.equal(made, 1);
      // same version, nothing known changed: not made again
      assert.equal(t.plan('g', 'Empty', 0, lazy(cp(5)), false, 2, 7), 'up-to-date');
      assert.equal(made, 1);
      // a new version (a checkpoint moved on): made and decided again
      assert.equal(t.plan('g', 'Empty', 0, lazy(cp(6)), false, 3, 8), 'read');
      assert.equal(made, 2);
      // a read that found the target behind the checkpoint of a version found up to date before: decided again
      t.read('g', [committed(6)], 4);
      assert.equal(t.plan('g', 'Empty', 0, lazy(cp(6)), false, 5, 8), 'up-to-date');
      assert.equal(made, 3);
      t.read('g', [committed(4)], 6);
      assert.equal(t.plan('g', 'Empty', 0, lazy(cp(6)), false, 7, 8), 'read');
      assert.equal(made, 4);
      // a write, a refusal, a forget, a rewind: each makes the group decided again
      t.written('g', [{ topic: 't', partition: 0, offset: 6n }], undefined, 8);
      assert.equal(t.plan('g', 'Empty', 0, lazy(cp(6)), false, 9, 8), 'up-to-date');
      assert.equal(made, 5);
      t.forget('g');
      assert.equal(t.plan('g', 'Empty', 0, lazy(cp(6)), false, 10, 8), 'read');
      t.read('g', [committed(6)], 11);
      assert.equal(t.plan('g', 'Empty', 0, lazy(cp(6)), false, 12, 8), 'up-to-date');
      t.noteCheckpoint(cp(6), cp(3, { upstream: 3 }));
      assert.equal(t.plan('g', 'Empty', 0, lazy(cp(3, { upstream: 3 })), false, 13, 9), 'read');
      // members on the target: never up to date from memory, also at a version found up to date before
      const u = new TargetOffsets();
      u.read('g', [committed(5)], 0);
      assert.equal(u.plan('g', 'Empty', 0, lazy(cp(5)), false, 1, 20), 'up-to-date');
      assert.equal(u.plan('g', 'Stable', 0, lazy(cp(5)), false, 2, 20), 'active');
      assert.equal(u.plan('g', 'Empty', 0, lazy(cp(5)), false, 3, 20), 'read');
    });

    it('a full run skips it until its re-read falls due (at most FULL_TARGET_READ_EVERY_MS after the read, spread), then reads it again', () => {
      const t = new TargetOffsets();
      t.read('g', [committed(5)], 1000);
      const due = t.rereadDueAt('g');
      assert.ok(due > 1000 && due <= 1000 + FULL_TARGET_READ_EVERY_MS, `due at ${due}`);
      assert.equal(t.plan('g', 'Empty', 1000, [cp(5)], true, due - 1), 'up-to-date');
      assert.equal(t.plan('g', 'Empty', 1000, [cp(5)], false, due), 'up-to-date', 'a partial run does not re-read');
      assert.equal(t.plan('g', 'Empty', 1000, [cp(5)], true, due), 'read');
      // read again at its moment: next due one whole period later
      t.read('g', [committed(5)], due);
      assert.equal(t.rereadDueAt('g'), due + FULL_TARGET_READ_EVERY_MS);
      // never read: due at once
      assert.equal(new TargetOffsets().rereadDueAt('g'), -Infinity);
      // a period of 0: every full run reads it again
      const z = new TargetOffsets({ fullReadEveryMs: 0 });
      z.read('g', [committed(5)], 1000);
      assert.equal(z.plan('g', 'Empty', 1000, [cp(5)], true, 1000), 'read');
      assert.equal(z.plan('g', 'Empty', 1000, [cp(5)], false, 1000), 'up-to-date');
    });

    it('a group not listed by a listing newer than our last read or write holds no offsets now (deleted): read it', () => {
      const t = new TargetOffsets();
      t.read('g', [committed(5)], 1000);
      assert.equal(t.plan('g', undefined, 999, [cp(5)], false, 1001), 'up-to-date', 'the listing is older than the read: what we read stands');
      assert.equal(t.plan('g', undefined, 1001, [cp(5)], false, 1002), 'read', 'listed after the read and absent: deleted on the target');
      assert.equal(t.offsetOf('g', 't', 0), undefined);
    });

    it('a commit refused as to a group with members: neither read nor written again until a listing made after the refusal', () => {
      const t = new TargetOffsets({ floorMs: 0 });
      t.read('g', [committed(5)], 1000);
      t.refused('g', true, undefined, 2000);
      assert.equal(t.offsetOf('g', 't', 0), undefined, 'what we knew is forgotten');
      assert.equal(t.plan('g', 'Empty', 1500, [cp(9)], false, 2100), 'refused', 'the listing (Empty) predates the refusal');
      assert.equal(t.plan('g', 'Empty', 2000, [cp(9)], true, 2100), 'refused', 'a full run with a listing of the same moment too');
      assert.equal(t.plan('g', 'Empty', 2001, [cp(9)], false, 2100), 'read', 'a newer listing shows it without members: read, then decided');
      assert.equal(t.plan('g', 'Empty', 1500, [cp(9)], false, 2200), 'read', 'and the refusal is not remembered after that');
      // another refusal (not for members) is tried again by the next run
      t.refused('g', false, undefined, 3000);
      assert.equal(t.plan('g', 'Empty', 1500, [cp(9)], false, 3100), 'read');
    });

    it('a write is also newer than the listing: the group written is kept', () => {
      const t = new TargetOffsets({ floorMs: 0 });
      t.written('g', [{ topic: 't', partition: 0, offset: 5n }], undefined, 2000);
      assert.equal(t.plan('g', undefined, 1500, [cp(5)], false, 2001), 'up-to-date');
    });
  });

  describe('decide: never backwards', () => {
    it('a target offset ahead of the checkpoint stays; a newer checkpoint is written', () => {
      const t = new TargetOffsets();
      const ahead = t.decide({ group: 'g', checkpoints: [cp(5)], targetGroupState: 'Empty', targetOffsets: [committed(8)], targetEndOffsets: ends(100) }, undefined);
      assert.equal(ahead.action, 'skip');
      assert.equal(ahead.skipped[0].code, 'target-ahead');
      const fwd = t.decide({ group: 'g', checkpoints: [cp(9)], targetGroupState: 'Empty', targetOffsets: [committed(8)], targetEndOffsets: ends(100) }, undefined);
      assert.equal(fwd.action, 'write');
      assert.deepEqual(
        fwd.offsets.map((o) => o.offset),
        [9n],
      );
    });
  });

  describe('rewinds on the source: followed once, and only with followRewinds', () => {
    /** A group at 10 on the target, rewound on the source to 4. */
    function rewound(opts) {
      const t = new TargetOffsets(opts);
      t.noteCheckpoint(undefined, cp(10));
      t.noteCheckpoint(cp(10), cp(4));
      t.read('g', [committed(10)], 0);
      const input = { group: 'g', checkpoints: [cp(4)], targetGroupState: 'Empty', targetOffsets: [committed(10)], targetEndOffsets: ends(100) };
      return { t, input };
    }

    it('a checkpoint with a lower upstream offset is a rewind; a higher or equal one is not', () => {
      const t = new TargetOffsets();
      t.noteCheckpoint(undefined, cp(10));
      t.noteCheckpoint(cp(10), cp(12));
      assert.deepEqual(t.pendingRewinds('g'), []);
      t.noteCheckpoint(cp(12), cp(3));
      assert.deepEqual(t.pendingRewinds('g'), [{ topic: 't', partition: 0, fromUpstream: 12n, fromDownstream: 12n }]);
      t.clearRewinds();
      assert.deepEqual(t.pendingRewinds('g'), []);
    });

    it('followRewinds: written back once; the next decision does not move it back again', () => {
      const { t, input } = rewound({ followRewinds: true });
      const marks = t.rewindsOf('g');
      const d = t.decide(input, marks);
      assert.equal(d.action, 'write');
      assert.deepEqual(
        d.offsets.map((o) => o.offset),
        [4n],
      );
      assert.equal(d.rewound.length, 1);
      t.written('g', d.offsets, marks, 1);
      assert.deepEqual(t.pendingRewinds('g'), [], 'acted on: dropped');
      // the target moved on to 10 again (a consumer on the target), the same checkpoint: never backwards
      const again = t.decide({ ...input, targetOffsets: [committed(10)] }, t.rewindsOf('g'));
      assert.equal(again.action, 'skip');
      assert.equal(again.skipped[0].code, 'target-ahead');
    });

    it('tells onRewindDone of each mark acted on, once: followed, decided on, or dropped for an active group', () => {
      const done = [];
      const onRewindDone = (group, mark) => done.push([group, mark.partition, mark.fromUpstream]);
      // followed and written
      const a = rewound({ followRewinds: true, onRewindDone });
      const marks = a.t.rewindsOf('g');
      const d = a.t.decide(a.input, marks);
      assert.deepEqual(done, [], 'a decision to write is not yet an act');
      a.t.written('g', d.offsets, marks, 1);
      assert.deepEqual(done, [['g', 0, 10n]]);
      a.t.written('g', d.offsets, marks, 2);
      assert.equal(done.length, 1, 'once');
      // decided not to follow (following off)
      done.length = 0;
      const b = rewound({ onRewindDone });
      b.t.decide(b.input, b.t.rewindsOf('g'));
      assert.deepEqual(done, [['g', 0, 10n]]);
      // the group has members on the target
      done.length = 0;
      const c = rewound({ followRewinds: true, onRewindDone });
      c.t.plan('g', 'Stable', 0, [cp(4)], false, 1);
      assert.deepEqual(done, [['g', 0, 10n]]);
      // a refused commit of a group that did not gain members keeps the mark (tried again)
      done.length = 0;
      const e = rewound({ followRewinds: true, onRewindDone });
      e.t.refused('g', false, e.t.rewindsOf('g'));
      assert.deepEqual(done, []);
      assert.equal(e.t.pendingRewinds('g').length, 1);
    });

    it("without followRewinds (MM2's behaviour) the target stays ahead, the rewind named once, then plain target-ahead", () => {
      const { t, input } = rewound();
      const d = t.decide(input, t.rewindsOf('g'));
      assert.equal(d.action, 'skip');
      assert.equal(d.skipped[0].code, 'rewind-not-followed');
      assert.deepEqual(t.pendingRewinds('g'), [], 'decided: dropped');
      assert.equal(t.decide(input, t.rewindsOf('g')).skipped[0].code, 'target-ahead');
    });

    it('a target that moved beyond the pre-rewind checkpoint is left alone, and the mark is dropped', () => {
      const { t, input } = rewound({ followRewinds: true });
      const d = t.decide({ ...input, targetOffsets: [committed(11)] }, t.rewindsOf('g'));
      assert.equal(d.action, 'skip');
      assert.equal(d.skipped[0].code, 'target-ahead');
      assert.deepEqual(t.pendingRewinds('g'), []);
    });

    it('a group with members is never touched: its rewind is not followed later, once it is empty again', () => {
      const { t, input } = rewound({ followRewinds: true });
      assert.equal(t.plan('g', 'Stable', 0, [cp(4)], false, 1), 'active');
      assert.deepEqual(t.pendingRewinds('g'), []);
      assert.equal(t.decide(input, t.rewindsOf('g')).skipped[0].code, 'target-ahead');
    });

    it('a commit refused with UNKNOWN_MEMBER_ID (members now) drops the marks; another refusal keeps them for the next run', () => {
      const a = rewound({ followRewinds: true });
      a.t.refused('g', false, a.t.rewindsOf('g'));
      assert.equal(a.t.pendingRewinds('g').length, 1, 'a refused commit wrote nothing: the rewind is still to follow');
      a.t.refused('g', true, a.t.rewindsOf('g'));
      assert.deepEqual(a.t.pendingRewinds('g'), []);
    });

    it('a rewind noted after the decision was taken stays for the next run', () => {
      const { t, input } = rewound({ followRewinds: true });
      const marks = t.rewindsOf('g');
      // meanwhile the group on the source rewinds partition 1 too
      t.noteCheckpoint(cp(8, { partition: 1 }), cp(2, { partition: 1 }));
      const d = t.decide(input, marks);
      t.written('g', d.offsets, marks, 1);
      assert.deepEqual(
        t.pendingRewinds('g').map((m) => m.partition),
        [1],
      );
    });

    it('a second rewind before the target followed keeps the highest point it was rewound from', () => {
      const t = new TargetOffsets({ followRewinds: true });
      t.noteCheckpoint(cp(10), cp(6));
      t.noteCheckpoint(cp(6), cp(3));
      assert.deepEqual(t.pendingRewinds('g'), [{ topic: 't', partition: 0, fromUpstream: 10n, fromDownstream: 10n }]);
    });
  });

  describe('the floor: the least time between two writes of a group', () => {
    it('a group written less than the floor ago waits until the floor ends; others and unwritten groups are ready', () => {
      const t = new TargetOffsets({ floorMs: 200 });
      assert.equal(t.floorMs, 200);
      t.written('a', [{ topic: 't', partition: 0, offset: 1n }], undefined, 1000);
      t.written('b', [{ topic: 't', partition: 0, offset: 1n }], undefined, 1100);
      t.written('c', [{ topic: 't', partition: 0, offset: 1n }], undefined, 500);
      assert.deepEqual(t.floor(['a', 'b', 'c', 'new'], 1150), { ready: ['c', 'new'], waiting: ['a', 'b'], wakeAt: 1200 });
      assert.deepEqual(t.floor(['a', 'b'], 1200), { ready: ['a'], waiting: ['b'], wakeAt: 1300 }, 'at the end of its floor a group is ready');
    });

    it('floor 0: every group is ready; the default is DEFAULT_MIN_WRITE_INTERVAL_MS', () => {
      const t = new TargetOffsets({ floorMs: 0 });
      t.written('a', [{ topic: 't', partition: 0, offset: 1n }], undefined, 1000);
      assert.deepEqual(t.floor(['a'], 1000), { ready: ['a'], waiting: [], wakeAt: Infinity });
      assert.equal(new TargetOffsets().floorMs, DEFAULT_MIN_WRITE_INTERVAL_MS);
    });

    it('a write is remembered as the target offset (merged with what was read)', () => {
      const t = new TargetOffsets();
      t.read('g', [committed(5, 0), committed(5, 1)], 0);
      t.written('g', [{ topic: 't', partition: 0, offset: 9n }], undefined, 1);
      assert.equal(t.offsetOf('g', 't', 0), 9n);
      assert.equal(t.offsetOf('g', 't', 1), 5n);
      assert.equal(t.upToDate('g', [cp(9, { partition: 0 }), cp(5, { partition: 1 })]), true);
    });
  });

  it('memory stays bounded: beyond 4x the groups held (at least 4,000) what is known is dropped and read again', () => {
    const t = new TargetOffsets();
    for (let i = 0; i <= 4000; i++) t.read(`g${i}`, [committed(1)], 0);
    t.trim(10);
    assert.equal(t.offsetOf('g0', 't', 0), undefined);
    const u = new TargetOffsets();
    for (let i = 0; i < 4000; i++) u.read(`g${i}`, [committed(1)], 0);
    u.trim(10);
    assert.equal(u.offsetOf('g0', 't', 0), 1n, 'at the bound: kept');
  });

  it('the groups\' names are interned once for the offsets, the times and the reports, and released when all of them forget a group', () => {
    const t = new TargetOffsets();
    t.read('a', [committed(1)], 0);
    t.written('b', [{ topic: 't', partition: 0, offset: 2n }], undefined, 1);
    const skip = t.upToDateSkip('c', 'Empty');
    assert.equal(t.namesHeld, 3);
    t.forget('a'); // its read time stays: still held
    assert.equal(t.namesHeld, 3);
    assert.equal(t.upToDateSkip('c', 'Empty'), skip, 'the same report');
    for (let i = 0; i <= 4000; i++) t.upToDateSkip(`s${i}`, undefined);
    for (let i = 0; i <= 4000; i++) t.read(`r${i}`, [], 0);
    t.trim(10); // the reports, the offsets and the read times go; b's write time stays (the floor)
    assert.equal(t.namesHeld, 1);
    assert.notEqual(t.upToDateSkip('c', 'Empty'), skip, 'a new report after the trim');
    assert.deepEqual(t.floor(['b', 'a'], 100), { ready: ['a'], waiting: ['b'], wakeAt: 201 });
  });
});
