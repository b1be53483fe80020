'use strict';
/** mm2-checkpoint output 1, a report: the whole state first and to a message that asked; what changed in between, never the whole state again by itself. */
const assert = require('node:assert/strict');
const util = require('node:util');
const { cloneMessage } = require('@node-red/util').util;
const { CheckpointCycles } = require('../../dist/nodes/mm2-checkpoint/mm2-checkpoint-cycles');
const { CheckpointStore } = require('../../dist/core/checkpoint-store');
const { LatestCheckpoints } = require('../../dist/core/checkpoint-cycle');
const { checkpointToJson } = require('../../dist/core/checkpoint-json');

function cp(group, partition, down) {
  return { group, topic: 'source.t', partition, upstreamOffset: BigInt(down), downstreamOffset: BigInt(down), metadata: '' };
}

function setup(node = {}) {
  const store = new CheckpointStore();
  store.markLoaded(true);
  const sent = [];
  let cycle = 0;
  const groups = ['a', 'b', 'c'];
  const latestNow = () => LatestCheckpoints.of(groups, store);
  const emitter = { latestState: latestNow };
  const state = { phase: { kind: 'ready' }, last: null, lastAt: 0, error: null, groups: null };
  const log = { ok() {}, warn() {}, error() {}, limited() {} };
  const cycles = new CheckpointCycles({
    node: Object.assign(node, { send: (/** @type {any} */ m) => sent.push(m) }),
    t: (k) => k,
    log: /** @type {any} */ (log),
    emitter: /** @type {any} */ (emitter),
    state: /** @type {any} */ (state),
    render() {},
    where: { sourceCluster: 's', targetCluster: 't', checkpointsTopic: 's.checkpoints.internal' },
  });
  const full = (written = []) => ({
    cycle: ++cycle, full: true, groups, written: written.map((c) => ({ ...c, timestamp: 1 })), coverage: [], failedGroups: [], latest: latestNow(), startedAt: 0, durationMs: 1, syncsLoaded: true,
  });
  /** the last message of output 1 (each output goes out in a send of its own) */
  const out1 = () => sent.filter((m) => m[0]).at(-1)[0];
  return { store, sent, cycles, full, state, out1 };
}

describe('mm2-checkpoint output 1: whole state, then what changed', function () {
  it('sends the whole state first, then only the groups whose checkpoints changed; the whole state never again by itself (no repair over the wire: the state is in the runtime)', function () {
    const { store, cycles, full, out1 } = setup();
    store.update('a', [cp('a', 0, 5), cp('a', 1, 6)]);
    store.update('b', [cp('b', 0, 7)]);
    cycles.deliver(full());
    let p = out1().payload;
    assert.equal(p.full, true);
    assert.equal(p.fullCycle, true);
    assert.deepEqual(Object.keys(p.latest), ['a', 'b']);
    assert.equal(p.latest.a[1].downstreamOffset, '6');
    // nothing changed: an empty change list, still a message (cycles run)
    cycles.deliver(full());
    p = out1().payload;
    assert.equal(p.full, false);
    assert.deepEqual(p.latest, {});
    // b moved, c is new
    store.update('b', [cp('b', 0, 9)]);
    store.update('c', [cp('c', 0, 1)]);
    cycles.deliver(full([cp('b', 0, 9), cp('c', 0, 1)]));
    p = out1().payload;
    assert.equal(p.full, false);
    assert.deepEqual(Object.keys(p.latest), ['b', 'c']);
    assert.equal(p.latest.b[0].downstreamOffset, '9');
    assert.equal(p.checkpoints.length, 2);
    // an event-driven partial cycle: its groups, and they are not sent again by the next full cycle
    store.update('a', [cp('a', 0, 8)]);
    cycles.deliver({ ...full([cp('a', 0, 8)]), full: false, latest: LatestCheckpoints.of(['a'], store) });
    p = out1().payload;
    assert.equal(p.full, false);
    assert.equal(p.fullCycle, false);
    assert.deepEqual(Object.keys(p.latest), ['a']);
    for (let i = 0; i < 5; i++) {
      cycles.deliver(full());
      p = out1().payload;
      assert.equal(p.full, false);
      assert.deepEqual(p.latest, {});
    }
  });

  it('a message that asked for a cycle gets the whole state, to that message', function () {
    const { store, cycles, full, state, out1 } = setup();
    store.update('a', [cp('a', 0, 5)]);
    const r = full();
    cycles.deliver(r);
    state.last = r;
    cycles.deliver(full());
    assert.equal(out1().payload.full, false);
    // a cycle asked for by a message: the whole state, to that message
    const answers = [];
    cycles.deliver(full(), { msg: { _msgid: 'x', topic: 'ask' }, send: (m) => answers.push(m) });
    assert.equal(answers[0][0].payload.full, true);
    assert.equal(answers[0][0]._msgid, 'x');
    assert.equal(answers[0][1], null, 'each output in a send of its own (Node-RED copies every message after the first destination of one send)');
    assert.equal(answers[1][0], null);
    assert.equal(answers[1][1].topic, 'mm2/coverage');
  });
});

describe('mm2-checkpoint: a source that stopped answering is cleared only by a cycle that read it afterwards', function () {
  it('a cycle started before the first failed request, or one whose every group failed, leaves it; one started after it that read a group clears it', function () {
    const { cycles, full, state } = setup();
    state.sourceUnanswered = { since: 5000, reason: 'a fetch failed' };
    cycles.deliver({ ...full(), startedAt: 4999 });
    assert.notEqual(state.sourceUnanswered, null, 'started before: it may have used what the stream kept');
    cycles.deliver({ ...full(), startedAt: 6000, failedGroups: ['a', 'b', 'c'].map((group) => ({ group, error: 'no answer' })) });
    assert.notEqual(state.sourceUnanswered, null, 'every group failed: the source did not answer');
    cycles.deliver({ ...full(), startedAt: 6000, failedGroups: [{ group: 'a', error: 'no answer' }] });
    assert.equal(state.sourceUnanswered, null);
  });
});

describe('mm2-checkpoint status: "N new" counts every path', function () {
  it('the checkpoints written by event-driven cycles since the last full cycle count in the next full cycle\'s "new", then start again', function () {
    const { store, cycles, full, state } = setup();
    store.update('a', [cp('a', 0, 5)]);
    cycles.deliver(full([cp('a', 0, 5)]));
    assert.equal(state.writtenNew, 1);
    // the event path writes three checkpoints between two full cycles, which itself writes none
    const partial = (written) => ({ ...full(written), full: false, groups: ['a'] });
    cycles.deliver(partial([cp('a', 0, 6), cp('a', 1, 2)]));
    cycles.deliver(partial([cp('a', 0, 7)]));
    cycles.deliver(partial([])); // wrote nothing: not sent, nothing counted
    cycles.deliver(full());
    assert.equal(state.writtenNew, 3, 'the full cycle wrote none, the event path three');
    cycles.deliver(full());
    assert.equal(state.writtenNew, 0, 'counted once');
  });
});

describe('mm2-checkpoint output 1: made only for a receiver', function () {
  /** The same cycles on a node: the payloads of output 1, as JSON. */
  function play(node, rewire) {
    const { store, sent, cycles, full } = setup(node);
    const payloads = () => sent.filter((m) => m[0]).map((m) => JSON.stringify(m[0].payload));
    store.update('a', [cp('a', 0, 5), cp('a', 1, 6)]);
    store.update('b', [cp('b', 0, 7)]);
    cycles.deliver(full([cp('a', 0, 5), cp('a', 1, 6), cp('b', 0, 7)]));
    store.update('a', [cp('a', 0, 8), cp('a', 1, 6)]);
    cycles.deliver({ ...full([cp('a', 0, 8)]), full: false, latest: LatestCheckpoints.of(['a'], store) });
    const before = payloads().length;
    const coverageBefore = sent.filter((m) => m[1]).length;
    rewire();
    store.update('b', [cp('b', 0, 9)]);
    store.update('c', [cp('c', 0, 1)]);
    cycles.deliver(full([cp('b', 0, 9), cp('c', 0, 1)]));
    return { before, coverageBefore, after: payloads().slice(before) };
  }

  it('output 1 wired to nothing makes no message; rewired (a deploy that does not restart the node), it carries what changed since, as if the messages had gone nowhere', function () {
    const unwired = { wires: [[], ['cov']] };
    const u = play(unwired, () => (unwired.wires = [['dbg'], ['cov']]));
    assert.equal(u.before, 0, 'no output 1 message while nothing is wired to it');
    assert.equal(u.coverageBefore, 1, 'output 2 goes on');
    const w = play({ wires: [['dbg'], ['cov']] }, () => undefined);
    assert.equal(w.before, 2);
    assert.deepEqual(u.after, w.after);
    assert.deepEqual(Object.keys(JSON.parse(u.after[0]).latest), ['b', 'c']);
    // a node without Node-RED's wires (not Node-RED's) counts as wired, and no output at all as not
    assert.equal(play({}, () => undefined).before, 2);
    assert.equal(play({ wires: [] }, () => undefined).before, 0);
  });

  it('its checkpoints are those of the moment it was sent, made when first read, the keys in their order', function () {
    const { store, cycles, full, out1 } = setup({ wires: [['dbg'], []] });
    const a = [cp('a', 0, 5), cp('a', 1, 6)];
    const b = [{ ...cp('b', 0, 7), upstreamOffset: -1n, metadata: 'm' }];
    store.update('a', a);
    store.update('b', b);
    cycles.deliver(full([...a, ...b]));
    const p = out1().payload;
    // the store moves on before a receiver reads the message
    store.update('a', [cp('a', 0, 9)]);
    assert.deepEqual(Object.keys(p), ['checkpoints', 'latest', 'full', 'fullCycle', 'cycle', 'sourceCluster', 'targetCluster', 'checkpointsTopic']);
    const json = (list) => list.map(checkpointToJson);
    assert.equal(
      JSON.stringify(p),
      JSON.stringify({ checkpoints: json([...a, ...b]).map((c) => ({ ...c })), latest: { a: json(a), b: json(b) }, full: true, fullCycle: true, cycle: 1, sourceCluster: 's', targetCluster: 't', checkpointsTopic: 's.checkpoints.internal' }),
    );
    assert.equal(p.latest, p.latest, 'made once');
    // a debug node printing to the console (util.inspect) shows the values, as of a plain object
    store.update('b', [cp('b', 0, 8)]);
    cycles.deliver(full([cp('b', 0, 8)]));
    const unread = out1().payload;
    assert.notEqual(unread, p);
    const plain = util.inspect(JSON.parse(JSON.stringify(unread)), { depth: 10 });
    // Node-RED's copy for a second wire first, then the message itself
    const copy = cloneMessage(unread);
    assert.equal(util.inspect(copy, { depth: 10 }), plain);
    assert.equal(util.inspect(unread, { depth: 10 }), plain);
    assert.equal(JSON.stringify(copy), JSON.stringify(unread));
    p.checkpoints = [];
    assert.deepEqual(p.checkpoints, [], 'a receiver may replace it');
  });
});
