'use strict';
/** core/group-offsets-cycle: what a group-offset sync run reports from its decisions and the commits' answers, without a broker. */
const assert = require('node:assert/strict');
const { emptyCycle, recordDecision, recordCommits, sortCycle, targetFailure } = require('../../dist/core/group-offsets-cycle');
const { TargetOffsets } = require('../../dist/core/target-offsets');

const stats = { groups: 0, partitions: 0, received: 0, malformed: 0 };

/** @returns {import('../../dist/core/group-offset-sync').GroupOffsetSyncDecision} */
function writeDecision(group, offset, extra = {}) {
  return {
    group, action: 'write', reason: 'moves',
    offsets: [{ topic: 'source1.t', partition: 0, offset: BigInt(offset), metadata: '' }],
    skipped: [], adjusted: [], rewound: [], ...extra,
  };
}
/** @returns {import('../../dist/core/group-offset-sync').SkippedPartition} */
function skip(code) {
  return { topic: 'source1.t', partition: 1, code, reason: `because ${code}`, checkpointOffset: 5n, targetOffset: null };
}

describe('core/group-offsets-cycle', function () {
  it('recordDecision: a write is committed; its skipped partitions are reported except up-to-date and active ones', function () {
    const r = emptyCycle(1, false, stats, 0);
    const d = writeDecision('g', 10, { skipped: [skip('topic-missing-on-target'), skip('up-to-date')] });
    assert.equal(recordDecision(r, 'g', 'Empty', d), true);
    assert.deepEqual(r.partitionsSkipped.map((p) => p.code), ['topic-missing-on-target']);
    assert.deepEqual(r.skipped, []);
  });

  it('recordDecision: nothing to write is up-to-date when every partition is up to date or ahead, else nothing-to-write', function () {
    const r = emptyCycle(1, false, stats, 0);
    assert.equal(recordDecision(r, 'a', 'Empty', { ...writeDecision('a', 1), action: 'skip', offsets: [], reason: 'ahead', skipped: [skip('target-ahead')] }), false);
    assert.equal(recordDecision(r, 'b', undefined, { ...writeDecision('b', 1), action: 'skip', offsets: [], reason: 'missing', skipped: [skip('partition-missing-on-target')] }), false);
    assert.deepEqual(r.skipped.map((s) => [s.group, s.code, s.reason]), [['a', 'up-to-date', 'ahead'], ['b', 'nothing-to-write', 'missing']]);
  });

  it('recordCommits: written groups are reported and remembered; UNKNOWN_MEMBER_ID is an active group; an unanswered commit is an error', function () {
    const targets = new TargetOffsets({ floorMs: 0 });
    const r = emptyCycle(3, true, stats, 0);
    /** @type {import('../../dist/core/group-offsets-cycle').PlannedCommit[]} */
    const planned = [
      { group: 'ok', state: 'Empty', decision: writeDecision('ok', 10, { adjusted: [{ topic: 'source1.t', partition: 0, checkpointOffset: 12n, offset: 10n, endOffset: 10n, reason: 'clamped' }] }) },
      { group: 'busy', state: undefined, decision: writeDecision('busy', 10) },
      { group: 'refused', state: 'Empty', decision: writeDecision('refused', 10) },
      { group: 'silent', state: 'Empty', decision: writeDecision('silent', 10) },
    ];
    const answers = new Map([
      ['ok', { ok: true }],
      ['busy', { ok: false, errorType: 'UNKNOWN_MEMBER_ID' }],
      ['refused', { ok: false, errorType: 'GROUP_AUTHORIZATION_FAILED', message: 'no READ' }],
    ]);
    const answered = recordCommits(r, targets, planned, (g) => answers.get(g), () => 1000);
    assert.equal(answered, 2, 'written, and refused because active: the target answered both');
    assert.deepEqual(r.written, [{ group: 'ok', offsets: [{ topic: 'source1.t', partition: 0, offset: 10n }] }]);
    assert.deepEqual(r.clamped.map((c) => [c.group, c.checkpointOffset, c.offset]), [['ok', 12n, 10n]]);
    assert.deepEqual(r.skipped.map((s) => [s.group, s.code, s.state]), [['busy', 'group-active', 'Dead'], ['refused', 'error', 'Empty'], ['silent', 'error', 'Empty']]);
    assert.equal(r.skipped[1].reason, 'commit refused: GROUP_AUTHORIZATION_FAILED no READ');
    assert.equal(r.skipped[2].reason, 'commit refused: UNKNOWN no answer');
    // remembered as written: the target now holds exactly that checkpoint
    assert.equal(targets.exactly('ok', [{ group: 'ok', topic: 'source1.t', partition: 0, upstreamOffset: 5n, downstreamOffset: 10n, metadata: '' }]), true);
    assert.equal(targets.exactly('refused', [{ group: 'refused', topic: 'source1.t', partition: 0, upstreamOffset: 5n, downstreamOffset: 10n, metadata: '' }]), false);
  });

  it('sortCycle orders every list by group, keeping a group\'s entries in order', function () {
    const r = emptyCycle(1, false, stats, 0);
    r.skipped.push({ group: 'b', code: 'error', reason: '1' }, { group: 'a', code: 'error', reason: '2' }, { group: 'b', code: 'error', reason: '3' });
    r.written.push({ group: 'z', offsets: [] }, { group: 'c', offsets: [] });
    sortCycle(r);
    assert.deepEqual(r.skipped.map((s) => s.group + s.reason), ['a2', 'b1', 'b3']);
    assert.deepEqual(r.written.map((w) => w.group), ['c', 'z']);
  });

  it('targetFailure: only when every read or every commit failed, with the first error\'s reason', function () {
    const r = emptyCycle(1, false, stats, 0);
    r.skipped.push({ group: 'a', code: 'up-to-date', reason: 'fine' }, { group: 'b', code: 'error', reason: 'could not read' });
    assert.equal(targetFailure(r, { asked: 2, failed: 1 }, { sent: 1, answered: 1 }), null);
    assert.equal(targetFailure(r, { asked: 0, failed: 0 }, { sent: 0, answered: 0 }), null, 'nothing asked is no failure');
    assert.equal(targetFailure(r, { asked: 2, failed: 2 }, { sent: 0, answered: 0 }), 'could not read');
    assert.equal(targetFailure(emptyCycle(1, false, stats, 0), { asked: 1, failed: 0 }, { sent: 3, answered: 0 }), 'the target did not answer');
  });
});
