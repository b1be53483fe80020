'use strict';
/**
 * The batched group requests kafkajs lacks (OffsetFetch v8, FindCoordinator v4, ListGroups v4/v5),
 * byte for byte: the layouts of apache/kafka's message JSON (compact strings and arrays, tagged
 * fields), the flexible request header v2 inside kafkajs's header v1, and response header v1.
 */
const assert = require('node:assert/strict');
const createRequest = require('kafkajs/src/protocol/request');
const rq = require('../../dist/kafka/group-requests');
const { StructReader, StructWriter } = require('../../dist/core/wire');
const { MalformedRecordError } = require('../../dist/core/errors');

const hex = (b) => Buffer.from(b).toString('hex');
const bytes = (s) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const str = (s) => Buffer.concat([Buffer.from([s.length + 1]), Buffer.from(s)]).toString('hex');

describe('group requests (bytes)', () => {
  it('OffsetFetch v8: groups as a compact array, null topics for all offsets, require_stable, tagged fields', () => {
    assert.equal(hex(rq.encodeOffsetFetchV8([{ groupId: 'g', topics: null }])), '02' + str('g') + '00' + '00' + '00' + '00');
    assert.equal(
      hex(rq.encodeOffsetFetchV8([{ groupId: 'g', topics: [{ topic: 't', partitions: [0, 1] }] }, { groupId: 'h', topics: null }], true)),
      '03' + str('g') + '02' + str('t') + '03' + '00000000' + '00000001' + '00' + '00' + str('h') + '00' + '00' + '01' + '00',
    );
  });

  it('OffsetFetch v8 response straight into CommittedOffset: offsets as int64, unknown tags skipped, truncation refused, -1 as null, null metadata as empty, a partition error kept, a topic named as the last one taken as it', () => {
    const body = bytes(
      '00000000' + '05' + // throttle, 4 groups
        str('g') + '02' + str('t') + '03' +
        '00000000 000000000000002a ffffffff' + str('m') + '0000 00' +
        '00000001 ffffffffffffffff 00000003 00 0000 01 07 02 aabb' + // no offset, null metadata, one unknown tag
        '00' + '0000' + '00' +
        str('h') + '01' + '0010' + '00' + // no topics, NOT_COORDINATOR
        str('k') + '02' + str('u') + '02' + '00000002 0000000000000005 ffffffff 00 0003 00' + '00' + '0000' + '00' + // UNKNOWN_TOPIC_OR_PARTITION on u-2
        str('m') + '03' + str('u') + '02' + '00000000 0000000000000007 ffffffff 01 0000 00' + '00' + str('tt') + '02' + '00000001 0000000000000008 ffffffff 01 0000 00' + '00' + '0000' + '00' + // u as the last group's (the same bytes), then tt
        '00',
    );
    const r = rq.decodeOffsetFetchV8Offsets(body);
    assert.deepEqual(r, {
      throttleTimeMs: 0,
      groups: [
        { groupId: 'g', errorCode: 0, partitionError: null, offsets: [
          { topic: 't', partition: 0, offset: 42n, metadata: 'm' },
          { topic: 't', partition: 1, offset: null, metadata: '' },
        ] },
        { groupId: 'h', errorCode: 16, partitionError: null, offsets: [] },
        { groupId: 'k', errorCode: 0, partitionError: { topic: 'u', partition: 2, errorCode: 3 }, offsets: [] },
        { groupId: 'm', errorCode: 0, partitionError: null, offsets: [
          { topic: 'u', partition: 0, offset: 7n, metadata: '' },
          { topic: 'tt', partition: 1, offset: 8n, metadata: '' },
        ] },
      ],
    });
    assert.throws(() => rq.decodeOffsetFetchV8Offsets(body.subarray(0, body.length - 3)), (e) => e instanceof MalformedRecordError && /OffsetFetch v8 response/.test(e.message) && /truncated/.test(e.message));
    for (let cut = 1; cut < 12; cut++) {
      assert.throws(() => rq.decodeOffsetFetchV8Offsets(body.subarray(0, body.length - cut)), (e) => e instanceof MalformedRecordError && /OffsetFetch v8 response/.test(e.message));
    }
  });

  it('FindCoordinator v4: key type 0 and many keys; the answer per key', () => {
    assert.equal(hex(rq.encodeFindCoordinatorV4(['a', 'b'])), '00' + '03' + str('a') + str('b') + '00');
    const r = rq.decodeFindCoordinatorV4(bytes('00000000 03' + str('a') + '00000001' + str('h') + '00002384 0000 00 00' + str('b') + 'ffffffff' + str('') + 'ffffffff 000f' + str('x') + '00 00'));
    assert.deepEqual(r.coordinators, [
      { key: 'a', nodeId: 1, host: 'h', port: 9092, errorCode: 0, errorMessage: null },
      { key: 'b', nodeId: -1, host: '', port: -1, errorCode: 15, errorMessage: 'x' },
    ]);
    assert.equal(rq.errorType(15), 'GROUP_COORDINATOR_NOT_AVAILABLE');
  });

  it('ListGroups v4 (states) and v5 (states and types): empty filters, every group with its state', () => {
    assert.equal(hex(rq.encodeListGroups(4)), '01' + '00');
    assert.equal(hex(rq.encodeListGroups(5)), '01' + '01' + '00');
    const v4 = rq.decodeListGroups(4, bytes('00000000 0000 02' + str('g') + str('consumer') + str('Stable') + '00 00'));
    assert.deepEqual(v4.groups, [{ groupId: 'g', protocolType: 'consumer', state: 'Stable' }]);
    const v5 = rq.decodeListGroups(5, bytes('00000000 0000 03' + str('g') + str('consumer') + str('Empty') + str('consumer') + '00' + str('c') + str('') + str('Empty') + str('classic') + '00 00'));
    assert.deepEqual(v5.groups, [
      { groupId: 'g', protocolType: 'consumer', state: 'Empty', type: 'consumer' },
      { groupId: 'c', protocolType: '', state: 'Empty', type: 'classic' },
    ]);
  });

  it("ListGroups: a group listed with the same bytes as in the broker's last answer is the last answer's object; any change is decoded", () => {
    const entry = (g, state) => str(g) + str('consumer') + str(state) + str('classic') + '00';
    const answer = (...entries) => bytes('00000000 0000 ' + (entries.length + 1).toString(16).padStart(2, '0') + entries.join('') + '00');
    const first = rq.decodeListGroups(5, answer(entry('a', 'Empty'), entry('b', 'Stable'), entry('c', 'Empty'), entry('d', 'Empty')));
    assert.deepEqual(first.groups.map((g) => [g.groupId, g.state, g.type]), [['a', 'Empty', 'classic'], ['b', 'Stable', 'classic'], ['c', 'Empty', 'classic'], ['d', 'Empty', 'classic']]);
    assert.equal(first.groups[0].state, first.groups[2].state, 'one string per state');
    // b changed state, c removed, e added between: the others are the last objects
    const next = rq.decodeListGroups(5, answer(entry('a', 'Empty'), entry('b', 'Empty'), entry('e', 'Empty'), entry('d', 'Empty')), first);
    assert.deepEqual(next.groups.map((g) => [g.groupId, g.state]), [['a', 'Empty'], ['b', 'Empty'], ['e', 'Empty'], ['d', 'Empty']]);
    assert.equal(next.groups[0], first.groups[0], 'a: unchanged, reused');
    assert.notEqual(next.groups[1], first.groups[1], 'b: its state changed, decoded');
    assert.equal(next.groups[3], first.groups[3], 'd: after a removed and an added group, reused');
    // a group removed before others: they are found one further
    const shorter = rq.decodeListGroups(5, answer(entry('b', 'Empty'), entry('e', 'Empty'), entry('d', 'Empty')), next);
    assert.deepEqual(shorter.groups.map((g) => g.groupId), ['b', 'e', 'd']);
    assert.equal(shorter.groups[0], next.groups[1]);
    assert.equal(shorter.groups[2], next.groups[3]);
    // same length, other bytes (a renamed group): decoded, never confused
    const renamed = rq.decodeListGroups(5, answer(entry('x', 'Empty'), entry('e', 'Empty'), entry('d', 'Empty')), shorter);
    assert.equal(renamed.groups[0].groupId, 'x');
    // a truncated answer is still refused with the last one at hand
    assert.throws(() => rq.decodeListGroups(5, answer(entry('b', 'Empty')).subarray(0, 12), shorter), /ListGroups v5 response/);
  });

  it('lengths past 127 take a two-byte varint', () => {
    const long = 'x'.repeat(200);
    assert.equal(hex(rq.encodeFindCoordinatorV4([long])).slice(0, 8), '00' + '02' + 'c901');
    const back = rq.decodeFindCoordinatorV4(Buffer.concat([bytes('00000000 02 c901'), Buffer.from(long), bytes('00000001 02 68 00002384 0000 00 00 00')]));
    assert.equal(back.coordinators[0].key, long);
  });

  it('frames as kafkajs sends it: header v1 + empty tagged fields (header v2); the response header tags are skipped', async () => {
    const req = rq.flexibleRequest('ListGroups', 5, rq.encodeListGroups(5), (b) => rq.decodeListGroups(5, b));
    assert.deepEqual([req.request.apiKey, req.request.apiVersion, req.request.apiName], [16, 5, 'ListGroups']);
    const wire = await createRequest({ request: req.request, correlationId: 7, clientId: 'c' });
    // size, api key, version, correlation id, client id (int16 length: not compact), header tags, body
    assert.equal(hex(wire.buffer), '0000000f' + '0010' + '0005' + '00000007' + '0001' + '63' + '00' + '010100');
    const payload = bytes('01 00 01 ff' + '00000000 0000 01 00'); // response header v1 with one tag, then the body
    const data = await req.response.parse(await req.response.decode(payload));
    assert.deepEqual({ throttleTimeMs: data.throttleTimeMs, errorCode: data.errorCode, groups: data.groups }, { throttleTimeMs: 0, errorCode: 0, groups: [] });
    assert.equal(hex(data.body), '00000000' + '0000' + '01' + '00', 'the body it was decoded from, after the header tags');
  });
});

describe('GroupOffsetFetcher.fetchMany (errors per group)', function () {
  this.timeout(10000);
  const { GroupOffsetFetcher } = require('../../dist/kafka/group-client');

  /** A stand-in broker answering with real response bytes; `groupErrors(attempt)` gives group -> error code. */
  function fetcherWith(groupErrors) {
    const sent = { FindCoordinator: 0, OffsetFetch: 0 };
    const broker = {
      nodeId: 1,
      versions: { 9: { minVersion: 0, maxVersion: 9 }, 10: { minVersion: 0, maxVersion: 6 } },
      disconnect: async () => undefined,
      connectionPool: {
        send: async (req) => {
          const body = (await req.request.encode()).buffer.subarray(1); // after the header tags
          const r = new StructReader(body);
          const w = new StructWriter().writeEmptyTaggedFields().writeInt32(0); // response header tags, throttle
          if (req.request.apiKey === 10) {
            sent.FindCoordinator++;
            r.readInt8();
            const keys = r.readCompactArray((x) => x.readCompactString());
            w.writeCompactArray(keys, (x, k) =>
              x.writeCompactString(k).writeInt32(1).writeCompactString('h').writeInt32(1).writeInt16(0).writeCompactNullableString(null).writeEmptyTaggedFields());
          } else {
            const attempt = sent.OffsetFetch++;
            const groups = r.readCompactArray((x) => {
              const g = x.readCompactString();
              x.readCompactArray(() => undefined);
              x.skipTaggedFields();
              return g;
            });
            const errs = groupErrors(attempt);
            w.writeCompactArray(groups, (x, g) => {
              const err = errs[g] ?? 0;
              x.writeCompactString(g);
              x.writeCompactArray(err ? [] : [0], (y) => {
                y.writeCompactString('t')
                  .writeCompactArray([0], (z) => z.writeInt32(0).writeInt64(7n).writeInt32(-1).writeCompactNullableString('').writeInt16(0).writeEmptyTaggedFields())
                  .writeEmptyTaggedFields();
              });
              x.writeInt16(err).writeEmptyTaggedFields();
            });
          }
          return req.response.parse(await req.response.decode(w.writeEmptyTaggedFields().toBuffer()));
        },
      },
    };
    const cluster = { brokerPool: { brokers: { 1: broker } }, findBroker: async () => broker, refreshMetadata: async () => undefined };
    const fetcher = new GroupOffsetFetcher(/** @type {any} */ ({}));
    /** @type {any} */ (fetcher).connected = async () => cluster;
    return { fetcher, sent };
  }

  it('a moved coordinator (NOT_COORDINATOR) is looked up again and asked again; a refusal lands in failed; others answered', async () => {
    const { fetcher, sent } = fetcherWith((attempt) => (attempt === 0 ? { a: 16, b: 30 } : { b: 30 }));
    /** @type {string[][]} */
    const batches = [];
    const { offsets, failed } = await fetcher.fetchMany(['a', 'b', 'c'], (answered) => batches.push([...answered.keys()].sort()));
    assert.deepEqual([...offsets.keys()].sort(), ['a', 'c']);
    assert.deepEqual(batches, [['c'], ['a']], 'each request\'s answered groups told as it answers (c first; a once asked again), never a failed one');
    assert.equal(offsets.get('a')[0].offset, 7n);
    assert.deepEqual([...failed.keys()], ['b']);
    assert.match(failed.get('b'), /GROUP_AUTHORIZATION_FAILED/);
    assert.deepEqual(sent, { FindCoordinator: 2, OffsetFetch: 2 }); // the moved group's coordinator asked again
  });

  it('a coordinator that stays moved fails its group after a few bounded tries', async () => {
    const { fetcher, sent } = fetcherWith(() => ({ a: 14 }));
    const { offsets, failed } = await fetcher.fetchMany(['a', 'c']);
    assert.deepEqual([...offsets.keys()], ['c']);
    assert.match(failed.get('a'), /LOAD_IN_PROGRESS/);
    assert.equal(sent.OffsetFetch, 5);
  });
});

describe('GroupOffsetFetcher: coordinators remembered (issue 24)', function () {
  /** A fetcher over a stand-in broker that answers every group (in reverse order), offset 7 on t-0. */
  function echoFetcher() {
    const { GroupOffsetFetcher } = require('../../dist/kafka/group-client');
    const sent = { FindCoordinator: 0, OffsetFetch: 0 };
    const broker = {
      nodeId: 1,
      versions: { 9: { minVersion: 0, maxVersion: 9 }, 10: { minVersion: 0, maxVersion: 6 } },
      disconnect: async () => undefined,
      connectionPool: {
        send: async (req) => {
          const body = (await req.request.encode()).buffer.subarray(1);
          const r = new StructReader(body);
          const w = new StructWriter().writeEmptyTaggedFields().writeInt32(0);
          if (req.request.apiKey === 10) {
            sent.FindCoordinator++;
            r.readInt8();
            const keys = r.readCompactArray((x) => x.readCompactString()).reverse(); // answered in another order
            w.writeCompactArray(keys, (x, k) => x.writeCompactString(k).writeInt32(1).writeCompactString('h').writeInt32(1).writeInt16(0).writeCompactNullableString(null).writeEmptyTaggedFields());
          } else {
            sent.OffsetFetch++;
            const groups = r.readCompactArray((x) => {
              const g = x.readCompactString();
              x.readCompactArray(() => undefined);
              x.skipTaggedFields();
              return g;
            }).reverse();
            w.writeCompactArray(groups, (x, g) => {
              x.writeCompactString(g).writeCompactArray([0], (y) => {
                y.writeCompactString('t').writeCompactArray([0], (z) => z.writeInt32(0).writeInt64(7n).writeInt32(-1).writeCompactNullableString('').writeInt16(0).writeEmptyTaggedFields()).writeEmptyTaggedFields();
              });
              x.writeInt16(0).writeEmptyTaggedFields();
            });
          }
          return req.response.parse(await req.response.decode(w.writeEmptyTaggedFields().toBuffer()));
        },
      },
    };
    const cluster = { brokerPool: { brokers: { 1: broker } }, findBroker: async () => broker, refreshMetadata: async () => undefined };
    const fetcher = new GroupOffsetFetcher(/** @type {any} */ ({}));
    /** @type {any} */ (fetcher).connected = async () => cluster;
    return { fetcher, sent };
  }

  it("a group's coordinator found once is remembered for the next reads; the answer is keyed by the names asked", async () => {
    const { fetcher, sent } = echoFetcher();
    const names = ['a', 'b', 'c'];
    const first = await fetcher.fetchMany(names);
    assert.deepEqual([...first.offsets.keys()].sort(), names);
    assert.deepEqual(first.failed, new Map());
    const again = await fetcher.fetchMany(names);
    assert.deepEqual([...again.offsets.keys()].sort(), names);
    assert.equal(again.offsets.get('b')[0].offset, 7n);
    assert.deepEqual(sent, { FindCoordinator: 1, OffsetFetch: 2 }, 'the coordinators were remembered');
  });

  it('fetchEach hands over each request\'s answer as it comes (GROUPS_PER_OFFSET_FETCH groups each); fetchMany gives them all at once', async () => {
    const { GROUPS_PER_OFFSET_FETCH } = require('../../dist/kafka/group-client');
    const { fetcher } = echoFetcher();
    const names = Array.from({ length: 2 * GROUPS_PER_OFFSET_FETCH + 1 }, (_, i) => `g${i}`);
    const answers = [];
    const { failed } = await fetcher.fetchEach(names, (answer) => answers.push(answer.size));
    assert.deepEqual(failed, new Map());
    assert.deepEqual(answers.sort((a, b) => b - a), [GROUPS_PER_OFFSET_FETCH, GROUPS_PER_OFFSET_FETCH, 1]);
    const all = await fetcher.fetchMany(names);
    assert.equal(all.offsets.size, names.length);
    assert.equal(all.offsets.get('g1000')[0].offset, 7n);
  });
});
