'use strict';

// describeGroupState: DescribeGroups (the classic describe) answers Dead with no members for a
// KIP-848 consumer group, with members or without (seen on Kafka 4.1.1 and 4.4.0 brokers,
// kip848-failover.test.js): a listed group answered Dead is Unknown, never a group without members.

const assert = require('node:assert/strict');
const { describeGroupState } = require('../../dist/kafka/group-listing');

/** A kafkajs admin answering DescribeGroups with `described` and ListGroups with `listed`. */
const admin = (described, listed) => /** @type {any} */ ({
  describeGroups: async (ids) => ({ groups: ids.map((groupId) => ({ groupId, ...described })) }),
  listGroups: async () => ({ groups: listed }),
});

describe('describeGroupState', () => {
  it('a consumer-protocol group (listed, DescribeGroups says Dead): Unknown, with the reason', async () => {
    const s = await describeGroupState(admin({ state: 'Dead', protocolType: '', members: [] }, [{ groupId: 'g', protocolType: 'consumer' }]), 'g');
    assert.equal(s.state, 'Unknown');
    assert.equal(s.members, 0);
    assert.match(s.error ?? '', /KIP-848/);
  });

  it('a group that is not listed and answered Dead: Dead (it does not exist)', async () => {
    assert.deepEqual(await describeGroupState(admin({ state: 'Dead', protocolType: '', members: [] }, [{ groupId: 'other', protocolType: 'consumer' }]), 'g'), { state: 'Dead', members: 0 });
  });

  it('a classic group: its state and members as described', async () => {
    assert.deepEqual(await describeGroupState(admin({ state: 'Stable', protocolType: 'consumer', members: [{}, {}] }, [{ groupId: 'g', protocolType: 'consumer' }]), 'g'), { state: 'Stable', members: 2 });
  });
});
