'use strict';
/** The fencing lease of a shared flow's instance, its share's words, and the shares' ownership rules (issue 25). */
const assert = require('node:assert/strict');
const { leaseHolds, leaseMarginMs, leaseUntil, flowShareSettings } = require('../../dist/core/share-lease');
/** @type {(v: any) => boolean} */
const shareShown = require('../../dist/core/share-lease').shareShown;
const shareStatus = require('../../dist/nodes/shared/share-status');
/** @type {(t: any, v: any, g: any) => string} */
const shareText = shareStatus.shareText;
/** @type {(t: any, view: any, v: any, g: any) => any} */
const withShare = shareStatus.withShare;
/** @type {(t: any, v: any) => string | null} */
const shareLogText = shareStatus.shareLogText;
const { ReplicationShares } = require('../../dist/engines/replication-shares');
const { settingsFingerprint } = require('../../dist/core/group-ownership');

/** A translate that shows the key and its values (the words themselves are in the catalogs). */
/** @type {any} */
const en = JSON.parse(require('node:fs').readFileSync(require('node:path').join(__dirname, '../../src/nodes/shared/locales/en-US/common.json'), 'utf8'))['mm2-common'];
function t(key, vars = {}) {
  const path = key.replace(/^mm2-common\./, '').split('.');
  let s = path.reduce((o, k) => (o ? o[k] : undefined), en);
  assert.equal(typeof s, 'string', `catalog key ${key}`);
  for (const [k, v] of Object.entries(vars)) s = s.split(`__${k}__`).join(String(v));
  return s;
}

describe('share lease (fencing a paused instance)', function () {
  it('holds from a heartbeat until the session timeout minus the margin, not at or after it', function () {
    const l = { lastHeartbeatAt: 1000, sessionTimeoutMs: 30000, marginMs: 10000 };
    assert.equal(leaseUntil(l), 21000);
    assert.equal(leaseHolds(l, 1000), true);
    assert.equal(leaseHolds(l, 20999), true);
    assert.equal(leaseHolds(l, 21000), false, 'at the end: expired');
    assert.equal(leaseHolds(l, 61000), false, 'a process paused for a minute wakes with no lease');
  });

  it('no heartbeat yet: no lease', function () {
    assert.equal(leaseUntil({ lastHeartbeatAt: null, sessionTimeoutMs: 30000, marginMs: 1 }), null);
    assert.equal(leaseHolds({ lastHeartbeatAt: null, sessionTimeoutMs: 30000, marginMs: 1 }, 0), false);
  });

  it('the margin: a third of the session timeout, at least two heartbeats, below the session timeout', function () {
    assert.equal(leaseMarginMs(30000, 1000), 10000);
    assert.equal(leaseMarginMs(10000, 3000), 6000);
    assert.equal(leaseMarginMs(3000, 2000), 2999);
    for (const [s, h] of [[30000, 1000], [6000, 500], [45000, 3000]]) {
      const m = leaseMarginMs(s, h);
      assert.ok(m >= 2 * h && m < s, `${s}/${h}: ${m}`);
    }
  });
});

describe('share words and settings', function () {
  /** @type {any} */
  const sharing = { kind: 'sharing', partitions: 17, partitionCount: 50, instances: 3 };

  it('status: "3,412 of 10,000 groups, 17 of 50 partitions, 3 instances", before the node\'s own text', function () {
    assert.equal(shareText(t, sharing, { owned: 3412, total: 10000 }), '3,412 of 10,000 groups, 17 of 50 partitions, 3 instances');
    assert.equal(shareText(t, sharing, { owned: null, total: null }), '17 of 50 partitions, 3 instances');
    const v = withShare(t, { activity: { fill: 'green', shape: 'dot', text: '12 groups ready / 1 s ago' } }, sharing, { owned: 3412, total: 10000 });
    assert.deepEqual(v.activity, { fill: 'green', shape: 'dot', text: '3,412 of 10,000 groups, 17 of 50 partitions, 3 instances · 12 groups ready / 1 s ago' });
  });

  it('one instance, working alone, or joining: the status exactly as before', function () {
    const view = { activity: { fill: 'green', shape: 'dot', text: '12 groups ready / 1 s ago' } };
    for (const s of [{ kind: 'alone' }, { kind: 'joining' }, { kind: 'solo', reason: 'no ACL' }, { ...sharing, instances: 1 }]) {
      assert.equal(withShare(t, view, s, { owned: 1, total: 1 }), view, JSON.stringify(s));
      assert.equal(shareShown(s), false);
    }
    const fail = { fail: 'error: x' };
    assert.equal(withShare(t, fail, sharing, { owned: 1, total: 2 }), fail, 'a failure is shown as it is');
  });

  it('kept out: yellow, naming the setting that differs; the log says it (and working alone, and the share)', function () {
    const differsText = 'setting groups differs from the other instances: orders-.* vs .*';
    const v = withShare(t, { activity: { fill: 'green', shape: 'dot', text: 'x' } }, { kind: 'refused', differsText }, { owned: 0, total: 0 });
    assert.equal(v.activity.fill, 'yellow');
    assert.match(v.activity.text, /setting groups differs from the other instances: orders-\.\* vs \.\*/);
    assert.match(shareLogText(t, { kind: 'refused', differsText }), /kept out.*setting groups differs/);
    assert.match(shareLogText(t, { kind: 'solo', reason: 'not authorized' }), /works alone.*not authorized.*READ on the prefixed group __mm2-node-red-shares\. and DESCRIBE on __consumer_offsets/);
    assert.match(shareLogText(t, sharing), /17 of 50 partitions, 3 instances/);
    assert.equal(shareLogText(t, { kind: 'alone' }), null);
    assert.equal(shareLogText(t, { ...sharing, instances: 1 }), null);
  });

  it('the settings that must agree: the flow\'s properties, the translation mode and the checkpoint node\'s, as text; never secrets', function () {
    const s = flowShareSettings({
      replicationProps: { 'replication.policy.class': 'DefaultReplicationPolicy', 'replication.policy.separator': '.', 'sasl.jaas.config': 'secret' },
      offsetTranslation: 'precise',
      checkpoint: { groups: '.*', 'groups.exclude': ['a', 'b'], 'emit.checkpoints.interval.seconds': 60, sourceOffsets: 'auto', nothing: undefined },
    });
    assert.deepEqual(s, {
      'replication.policy.class': 'DefaultReplicationPolicy', 'replication.policy.separator': '.', 'offset.translation': 'precise',
      groups: '.*', 'groups.exclude': 'a, b', 'emit.checkpoints.interval.seconds': '60', sourceOffsets: 'auto',
    });
    const other = flowShareSettings({ replicationProps: {}, offsetTranslation: 'mm2', checkpoint: { groups: '.*' } });
    assert.notEqual(settingsFingerprint(s), settingsFingerprint(other));
  });
});

describe('replication shares without a membership', function () {
  it('no checkpoint node joined: owns every group and may write', async function () {
    const shares = new ReplicationShares();
    assert.deepEqual(shares.current, { kind: 'alone' });
    assert.equal(shares.owns('orders'), true);
    assert.equal(shares.writable(), true);
    await shares.ready();
  });

  it('a membership that cannot start: works alone (owns everything, writes), says why, and leaves cleanly', async function () {
    const shares = new ReplicationShares();
    const views = [];
    shares.subscribe((v) => views.push(v));
    // an empty alias is refused by the membership at once
    const leave = shares.join({ kafka: /** @type {any} */ ({}), sourceAlias: '', targetAlias: 't', settings: {} });
    await shares.ready();
    assert.equal(shares.current.kind, 'solo');
    assert.match(shares.current.reason, /sourceAlias/);
    assert.equal(shares.owns('any'), true);
    assert.equal(shares.writable(), true);
    assert.equal(views.length, 1);
    await leave();
    assert.deepEqual(shares.current, { kind: 'alone' });
  });
});
