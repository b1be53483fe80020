'use strict';
/**
 * AdminOffsetCommitter: a coordinator that is loading or moved (a new __consumer_offsets, a
 * restarted broker) is asked again a few times; any other refusal is answered at once.
 * The kafkajs cluster object is replaced by a stand-in (the commit's broker calls only).
 */
const assert = require('node:assert/strict');
const { AdminOffsetCommitter } = require('../../dist/kafka/group-client');

/** @param {Array<string | null>} answers error type per attempt, null = accepted */
function committerWith(answers) {
  const calls = { commits: 0 };
  const committer = new AdminOffsetCommitter(/** @type {any} */ ({}));
  const cluster = {
    findGroupCoordinator: async () => ({
      offsetCommit: async () => {
        const type = answers[calls.commits++];
        if (type) throw Object.assign(new Error(`refused: ${type}`), { type });
        return {};
      },
    }),
  };
  /** @type {any} */ (committer).connected = async () => cluster;
  return { committer, calls };
}

const OFFSETS = [{ topic: 't', partition: 0, offset: 5n }];

describe('AdminOffsetCommitter', function () {
  this.timeout(10000);
  it('asks again while the coordinator is loading or moved, then commits', async function () {
    const { committer, calls } = committerWith(['COORDINATOR_LOAD_IN_PROGRESS', 'NOT_COORDINATOR', null]);
    assert.deepEqual(await committer.commit('g', OFFSETS), { ok: true });
    assert.equal(calls.commits, 3);
  });

  it('gives up after a bounded number of tries and says why', async function () {
    const { committer, calls } = committerWith(Array(10).fill('COORDINATOR_NOT_AVAILABLE'));
    const r = await committer.commit('g', OFFSETS);
    assert.equal(r.ok, false);
    assert.equal(r.errorType, 'COORDINATOR_NOT_AVAILABLE');
    assert.equal(calls.commits, 5);
  });

  it('a group with members (UNKNOWN_MEMBER_ID) is answered at once, never retried', async function () {
    const { committer, calls } = committerWith(['UNKNOWN_MEMBER_ID', null]);
    const r = await committer.commit('g', OFFSETS);
    assert.deepEqual([r.ok, r.errorType, calls.commits], [false, 'UNKNOWN_MEMBER_ID', 1]);
  });
});
