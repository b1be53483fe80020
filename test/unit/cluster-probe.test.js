'use strict';
/** The bounded cluster question behind "never green while a cluster does not answer" (kafka/cluster-probe), with an in-memory admin. */
const assert = require('node:assert/strict');
const { askCluster, ProbeSchedule } = require('../../dist/kafka/cluster-probe');
const { topicEnds } = require('../../dist/kafka/topic-reader');

/**
 * @param {any} admin in memory, with only the calls the test makes
 * @returns {import('../../dist/kafka/cluster-probe').ProbeConnection & { ok: number, errors: string[] }}
 */
function connection(admin) {
  const c = /** @type {ReturnType<typeof connection>} */ ({ ok: 0, errors: [], admin: async () => admin });
  c.reportOk = () => c.ok++;
  c.reportError = (/** @type {Error} */ e) => {
    c.errors.push(e.message);
    return `explained: ${e.message}`;
  };
  return c;
}

describe('cluster probe', function () {
  it('an answer marks the connection healthy', async function () {
    const c = connection({ describeCluster: async () => ({ brokers: [1] }) });
    assert.deepEqual(await askCluster(c, 100, (a) => a.describeCluster()), { brokers: [1] });
    assert.equal(c.ok, 1);
  });

  it('no answer within the timeout marks the connection failed and rejects with the explanation', async function () {
    const c = connection({ describeCluster: () => new Promise(() => undefined) });
    await assert.rejects(askCluster(c, 20, (a) => a.describeCluster()), /^Error: explained: the cluster did not answer within 0 s$/);
    assert.equal(c.ok, 0);
    assert.equal(c.errors.length, 1);
  });

  it('a failure marks the connection failed', async function () {
    const c = connection({ describeCluster: async () => Promise.reject(new Error('Connection error: ECONNREFUSED')) });
    await assert.rejects(askCluster(c, 1000, (a) => a.describeCluster()), /explained: Connection error/);
  });

  it('one probe at a time, at most every everyMs', function () {
    const s = new ProbeSchedule(100);
    assert.equal(s.due(0), true);
    assert.equal(s.due(200), false, 'still running');
    s.done();
    assert.equal(s.due(50), false, 'too soon');
    assert.equal(s.due(100), true);
  });

  it('topicEnds leaves missing topics out without asking for their offsets', async function () {
    const asked = [];
    const admin = {
      listTopics: async () => ['a', 'gone'],
      fetchTopicOffsets: async (t) => {
        asked.push(t);
        if (t === 'gone') throw Object.assign(new Error('This server does not host this topic-partition'), { type: 'UNKNOWN_TOPIC_OR_PARTITION' });
        return [{ partition: 0, low: '0', high: '7' }, { partition: 1, low: '2', high: '3' }];
      },
    };
    const ends = await topicEnds(/** @type {any} in memory, only the calls topicEnds makes */ (admin), ['a', 'missing', 'gone']);
    assert.deepEqual([...ends], [['a', new Map([[0, 7n], [1, 3n]])]]);
    assert.deepEqual(asked, ['a', 'gone']);
  });
});
