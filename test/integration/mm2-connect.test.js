'use strict';
/**
 * mm2-connect against a REAL distributed Kafka Connect worker with MirrorMaker 2's connectors
 * (scripts/kafka/connect.js; its internal topics on the target cluster): a flow's settings are
 * exported and deployed, the real connectors run and replicate, checkpoints and group offsets
 * appear on the target, our mm2-offset-syncs and mm2-heartbeat nodes watch what the connectors
 * write, pause / resume / restart / delete work and the node reports the states; a bad URL and a
 * config MM2 would refuse give clear errors. Also the admin export endpoint.
 *
 * This is the end-to-end path of examples/deploy-to-kafka-connect.json: the same nodes (the disabled
 * mirror, checkpoint and group-offsets nodes whose settings Connect runs, the heartbeat and offset-syncs
 * nodes watching, mm2-connect), wired the same way, on the suite's clusters.
 *
 * Isolation: unique cluster aliases, topic and group; MM2's `topics`/`groups` are restricted to
 * them (through the disabled mirror/checkpoint nodes whose settings are exported).
 */
const assert = require('node:assert/strict');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { startConnectWorker, startMirrorMaker } = require('../../scripts/kafka/connect');
const { parseJavaProperties } = require('../../dist/core/java-properties');
const { decodeCheckpoint, decodeHeartbeat, OffsetSyncStore, ConnectRestClient } = require('../../dist');

const RECORDS = 60;

const admins = {};
/** One admin client per cluster for the whole file (closed by the harness at the end). */
function adminOf(cluster) {
  if (!admins[cluster]) admins[cluster] = env.admin(cluster);
  return admins[cluster];
}

/** Every record of partition 0 of `topic` on `cluster`, up to its end now (empty if it does not exist). */
async function readAll(cluster, topic) {
  const admin = await adminOf(cluster);
  let offs;
  try {
    offs = await admin.fetchTopicOffsets(topic);
  } catch {
    return [];
  }
  const high = Number(offs.find((o) => o.partition === 0)?.high ?? 0);
  if (high === 0) return [];
  const consumer = env.kafka(cluster).consumer({ groupId: env.unique('__connect-test-reader'), maxWaitTimeInMs: 200 });
  const out = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    let last = -1;
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        if (partition !== 0) return;
        out.push({ key: message.key, value: message.value, offset: Number(message.offset) });
        last = Math.max(last, Number(message.offset));
      },
    });
    await env.eventually(() => last >= high - 1, { what: `reading ${topic} to offset ${high}` });
  } finally {
    await consumer.disconnect();
  }
  return out;
}

/** Waits for the next message on a helper node that satisfies `pred`. */
function nextMessage(list, pred, what, timeout = 60000) {
  return env.eventually(() => list.find(pred), { timeout, what });
}

describe('mm2-connect: deploy to a real Kafka Connect worker', function () {
  this.timeout(240000);
  let worker;

  before(async function () {
    worker = await startConnectWorker({ bootstrap: env.cluster('target').bootstrap });
  });

  after(async function () {
    if (worker) await worker.stop();
  });

  afterEach(async function () {
    await nodes.helper.unload();
  });

  it('deploys the flow as MM2 connectors that run, replicate and checkpoint; our nodes watch them; pause, resume, restart, delete', async function () {
    const S = env.unique('cs');
    const T = env.unique('ct');
    const topic = env.unique('orders');
    const group = env.unique('billing-app');
    const remote = `${S}.${topic}`;

    // source data: 60 records, a consumer group that consumed all of them
    const srcAdmin = await adminOf('source');
    await srcAdmin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
    const producer = env.kafka('source').producer();
    await producer.connect();
    await producer.send({ topic, messages: Array.from({ length: RECORDS }, (_, i) => ({ key: `k${i}`, value: `order-${i}` })) });
    await producer.disconnect();
    await srcAdmin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: String(RECORDS) }] });

    await nodes.load(
      [
        { id: 'tab', type: 'tab', label: 'connect' },
        // what Connect runs: disabled here, their settings describe the connectors
        { id: 'mirror', type: 'mm2-mirror', z: 'tab', d: true, replication: 'rep', topics: topic, replicationFactor: '1', offsetLagMax: '0', refreshTopicsIntervalSeconds: '5', wires: [[]] },
        { id: 'cp', type: 'mm2-checkpoint', z: 'tab', d: true, replication: 'rep', groups: group, topics: topic, emitCheckpointsIntervalSeconds: '1', refreshGroupsIntervalSeconds: '5', wires: [[], []] },
        { id: 'go', type: 'mm2-group-offsets', z: 'tab', d: true, replication: 'rep', mode: 'input', syncGroupOffsetsIntervalSeconds: '1', wires: [[]] },
        // what keeps running in Node-RED: the heartbeat node (emits into the source, watches <source>.heartbeats on the target)
        // and the offset-syncs reader (reads the syncs MirrorSourceConnector writes)
        { id: 'hb', type: 'mm2-heartbeat', z: 'tab', replication: 'rep', emitHeartbeatsEnabled: true, emitHeartbeatsIntervalSeconds: '1', staleAfterSeconds: '120', watch: true, wires: [['hbOut'], []] },
        { id: 'syncs', type: 'mm2-offset-syncs', z: 'tab', replication: 'rep', wires: [['syncsOut']] },
        { id: 'connect', type: 'mm2-connect', z: 'tab', replication: 'rep', url: worker.url, urlType: 'str', deploySource: true, deployCheckpoint: true, deployHeartbeat: true, pollSeconds: '1', wires: [['out']] },
        { id: 'out', type: 'helper', z: 'tab' },
        { id: 'hbOut', type: 'helper', z: 'tab' },
        { id: 'syncsOut', type: 'helper', z: 'tab' },
      ],
      { over: { src: { alias: S }, tgt: { alias: T } } },
    );
    const connect = nodes.helper.getNode('connect');
    assert.ok(connect, 'the mm2-connect node started');
    assert.equal(nodes.helper.getNode('mirror'), null, 'disabled nodes do not run');
    const out = nodes.collect(nodes.helper.getNode('out'));
    const hbOut = nodes.collect(nodes.helper.getNode('hbOut'));
    const syncsOut = nodes.collect(nodes.helper.getNode('syncsOut'));
    const statuses = nodes.statuses(connect);
    const names = { source: `mm2-${S}-${T}-source`, checkpoint: `mm2-${S}-${T}-checkpoint`, heartbeat: `mm2-${S}-${T}-heartbeat` };

    // nothing deployed yet: the first poll says so
    await env.eventually(() => statuses.some((s) => s.text === 'not deployed'), { what: "status 'not deployed'" });

    try {
      // ---- deploy ----
      connect.receive({ payload: 'deploy' });
      const deployed = (await nextMessage(out, (m) => m.action === 'deploy', 'deploy result')).payload;
      assert.equal(deployed.ok, true, JSON.stringify(deployed));
      assert.equal(deployed.url, worker.url);
      assert.deepEqual(deployed.connectors.map((c) => [c.kind, c.name, c.state, c.result]), [
        ['source', names.source, 'RUNNING', 'created'],
        ['checkpoint', names.checkpoint, 'RUNNING', 'created'],
        ['heartbeat', names.heartbeat, 'RUNNING', 'created'],
      ]);
      assert.deepEqual(deployed.summary, { RUNNING: 3 });

      // what the worker holds is the export of the flow's settings
      // through our client: a GET while the worker still rebalances after the deploy is answered 409
      // (a body without connector.class), and the client repeats it
      const rest = new ConnectRestClient({ url: worker.url });
      const cfg = await rest.getConfig(names.checkpoint);
      assert.equal(cfg['connector.class'], 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector');
      assert.equal(cfg.groups, group);
      assert.equal(cfg.topics, topic);
      assert.equal(cfg['emit.checkpoints.interval.seconds'], '1');
      assert.equal(cfg['sync.group.offsets.enabled'], 'true', 'from the group-offsets node');
      assert.equal(cfg['sync.group.offsets.interval.seconds'], '1');
      assert.equal(cfg['source.cluster.alias'], S);
      assert.equal(cfg['target.cluster.bootstrap.servers'], env.cluster('target').bootstrap);
      for (const k of ['key.converter', 'value.converter', 'header.converter']) assert.equal(cfg[k], 'org.apache.kafka.connect.converters.ByteArrayConverter');
      const srcCfg = await rest.getConfig(names.source);
      assert.equal(srcCfg['offset.lag.max'], '0', 'from the mirror node');
      assert.equal(srcCfg['replication.factor'], '1');

      // the tasks run
      const running = await env.eventually(async () => {
        const r = (await worker.rest('GET', `/connectors/${names.source}/status`)).json;
        return r && r.tasks && r.tasks.length > 0 && r.tasks.every((t) => t.state === 'RUNNING') && r;
      }, { timeout: 60000, what: 'source connector task RUNNING' });
      assert.equal(running.connector.state, 'RUNNING');

      // MirrorSourceConnector replicated every record, in order, to <source>.<topic> on the target
      const replicated = await env.eventually(async () => {
        const recs = await readAll('target', remote);
        return recs.length === RECORDS && recs;
      }, { timeout: 90000, what: `${RECORDS} records in ${remote}` });
      assert.deepEqual(replicated.map((r) => [r.offset, r.key.toString(), r.value.toString()]), Array.from({ length: RECORDS }, (_, i) => [i, `k${i}`, `order-${i}`]));

      // our mm2-offset-syncs node loads the offset syncs MirrorSourceConnector writes; offset.lag.max=0 syncs the last record
      const store = new OffsetSyncStore({ keepHistoryOnLoad: true });
      let seen = 0;
      await env.eventually(() => {
        for (; seen < syncsOut.length; seen++) {
          const p = syncsOut[seen].payload;
          if (p.event === 'syncs') {
            for (const s of p.syncs) if (s.topic === topic) store.apply({ topic: s.topic, partition: s.partition, upstreamOffset: BigInt(s.upstreamOffset), downstreamOffset: BigInt(s.downstreamOffset) });
          } else if (p.event === 'loaded') store.markLoaded();
        }
        return store.translate(topic, 0, BigInt(RECORDS)) === BigInt(RECORDS);
      }, { timeout: 60000, what: `our reader translating ${RECORDS} -> ${RECORDS} from MM2's syncs` });
      assert.equal(syncsOut.find((m) => m.payload.event === 'loaded').payload.source.topic, `mm2-offset-syncs.${T}.internal`);

      // MirrorCheckpointConnector wrote the group's checkpoint on the target: the same translation as ours
      const cp = await env.eventually(async () => {
        const recs = (await readAll('target', `${S}.checkpoints.internal`)).map((r) => decodeCheckpoint(r.key, r.value));
        return recs.filter((c) => c.group === group).pop();
      }, { timeout: 90000, what: `a checkpoint for ${group}` });
      assert.deepEqual(
        { group: cp.group, topic: cp.topic, partition: cp.partition, upstream: cp.upstreamOffset, downstream: cp.downstreamOffset },
        { group, topic: remote, partition: 0, upstream: BigInt(RECORDS), downstream: store.translate(topic, 0, BigInt(RECORDS)) },
      );
      // ... and synced the group's offset on the target (sync.group.offsets.enabled from the group-offsets node)
      const tgtAdmin = await adminOf('target');
      await env.eventually(async () => {
        const offs = await tgtAdmin.fetchOffsets({ groupId: group, topics: [remote] });
        return Number(offs[0]?.partitions.find((p) => p.partition === 0)?.offset) === RECORDS;
      }, { timeout: 60000, what: `${group} at ${RECORDS} on ${remote} on the target` });

      // MirrorHeartbeatConnector writes Heartbeat(S, T) into the target's heartbeats topic
      await env.eventually(async () => {
        const hbs = (await readAll('target', 'heartbeats')).map((r) => decodeHeartbeat(r.key, r.value));
        return hbs.some((h) => h.sourceClusterAlias === S && h.targetClusterAlias === T);
      }, { timeout: 60000, what: 'a heartbeat from MirrorHeartbeatConnector on the target' });
      // our heartbeat node's watcher sees the heartbeats MirrorSourceConnector replicates to <source>.heartbeats
      const watched = await nextMessage(hbOut, (m) => m.payload.sourceClusterAlias === S, `a heartbeat in ${S}.heartbeats`, 90000);
      assert.equal(watched.payload.heartbeatsTopic, `${S}.heartbeats`);
      assert.equal(watched.payload.targetClusterAlias, T);
      assert.equal(typeof watched.payload.latencyMs, 'number');

      await env.eventually(() => statuses.some((s) => s.text === '3 running' && s.fill === 'green'), { what: "status '3 running'" });

      // ---- the periodic poll reports a change made outside Node-RED ----
      await rest.pause(names.heartbeat);
      const polled = await nextMessage(out, (m) => m.action === 'poll' && m.payload.connectors.find((c) => c.kind === 'heartbeat').state === 'PAUSED', 'a poll message with the heartbeat connector PAUSED');
      assert.equal(polled.topic, 'mm2/connect');
      assert.equal(polled.payload.ok, false);
      assert.deepEqual(polled.payload.summary, { RUNNING: 2, PAUSED: 1 });

      // ---- pause, status, resume, restart ----
      const count = () => out.length;
      let before = count();
      connect.receive({ action: 'pause' });
      const paused = await nextMessage(out, (m, i) => i >= before && m.action === 'pause', 'pause result');
      assert.equal(paused.payload.ok, true, JSON.stringify(paused.payload));
      for (const c of paused.payload.connectors) {
        assert.equal(c.state, 'PAUSED', c.name);
        for (const t of c.tasks) assert.equal(t.state, 'PAUSED', `${c.name} task ${t.id}`);
      }
      assert.deepEqual(paused.payload.connectors.map((c) => c.result), ['paused', 'paused', 'paused']);
      await env.eventually(() => statuses.some((s) => s.text === '3 paused'), { what: "status '3 paused'" });

      before = count();
      connect.receive({ payload: 'status', connectors: ['checkpoint'] });
      const st = await nextMessage(out, (m, i) => i >= before && m.action === 'status', 'status result');
      assert.deepEqual(st.payload.connectors.map((c) => [c.kind, c.state]), [['checkpoint', 'PAUSED']]);

      before = count();
      connect.receive({ payload: 'resume' });
      const resumed = await nextMessage(out, (m, i) => i >= before && m.action === 'resume', 'resume result');
      assert.equal(resumed.payload.ok, true, JSON.stringify(resumed.payload));
      assert.deepEqual(resumed.payload.connectors.map((c) => c.state), ['RUNNING', 'RUNNING', 'RUNNING']);

      before = count();
      connect.receive({ payload: 'restart' });
      const restarted = await nextMessage(out, (m, i) => i >= before && m.action === 'restart', 'restart result');
      assert.equal(restarted.payload.ok, true, JSON.stringify(restarted.payload));
      assert.deepEqual(restarted.payload.connectors.map((c) => [c.state, c.result]), [['RUNNING', 'restarted'], ['RUNNING', 'restarted'], ['RUNNING', 'restarted']]);

      // a second deploy updates the existing connectors
      before = count();
      connect.receive({ payload: 'deploy' });
      const redeployed = await nextMessage(out, (m, i) => i >= before && m.action === 'deploy', 'second deploy result');
      assert.deepEqual(redeployed.payload.connectors.map((c) => c.result), ['updated', 'updated', 'updated']);
    } finally {
      // ---- delete (also the clean-up) ----
      const before = out.length;
      connect.receive({ payload: 'delete' });
      const deleted = await nextMessage(out, (m, i) => i >= before && m.action === 'delete', 'delete result');
      assert.equal(deleted.payload.ok, true);
      assert.deepEqual(deleted.payload.connectors.map((c) => [c.state, c.result]), [[null, 'deleted'], [null, 'deleted'], [null, 'deleted']]);
      const left = (await worker.rest('GET', '/connectors')).json;
      for (const n of Object.values(names)) assert.ok(!left.includes(n), `${n} deleted`);
      await env.eventually(() => statuses.some((s) => s.text === 'not deployed'), { what: "status 'not deployed' after delete" });
    }
  });

  it('the admin endpoint exports the deployed flow in each format, and a posted (undeployed) flow', async function () {
    const S = env.unique('es');
    const T = env.unique('et');
    await nodes.load(
      [
        { id: 'cp', type: 'mm2-checkpoint', replication: 'rep', groups: 'orders-.*, billing', emitCheckpointsIntervalSeconds: '10', d: true, wires: [[], []] },
        { id: 'go', type: 'mm2-group-offsets', replication: 'rep', syncGroupOffsetsIntervalSeconds: '10', d: true, wires: [[]] },
      ],
      { over: { src: { alias: S }, tgt: { alias: T } } },
    );
    const json = await nodes.helper.request().get('/mm2/export/rep?format=json').expect(200);
    assert.deepEqual(json.body.connectors.map((c) => c.name), [`mm2-${S}-${T}-source`, `mm2-${S}-${T}-checkpoint`, `mm2-${S}-${T}-heartbeat`]);
    const bodies = JSON.parse(json.body.text);
    assert.equal(bodies[1].config.groups, 'orders-.*, billing');
    assert.equal(bodies[1].config['sync.group.offsets.enabled'], 'true');
    assert.deepEqual(json.body.connectors[1].from, ['cp', 'go']);
    const mm2 = await nodes.helper.request().get('/mm2/export/rep?format=mm2&connectors=checkpoint').expect(200);
    assert.match(mm2.body.text, new RegExp(`^${S}->${T}\\.enabled=true$`, 'm'));
    assert.match(mm2.body.text, new RegExp(`^${S}->${T}\\.groups=orders-\\.\\*, billing$`, 'm'));
    assert.deepEqual(mm2.body.connectors.map((c) => c.kind), ['checkpoint']);
    const yaml = await nodes.helper.request().get('/mm2/export/rep?format=yaml').expect(200);
    assert.match(yaml.body.text, /^connector\.class: "org\.apache\.kafka\.connect\.mirror\.MirrorHeartbeatConnector"$/m);
    // the editor posts its current (maybe undeployed) values
    const posted = await nodes.helper
      .request()
      .post('/mm2/export/rep')
      .send({
        format: 'properties',
        connectors: ['checkpoint'],
        flow: {
          replication: { policy: 'IdentityReplicationPolicy', separator: '.', internalSeparator: true, offsetSyncsLocation: 'target', replicationFactor: '1' },
          source: { id: 'src', alias: 'edited', bootstrap: 'h1:9092', saslMechanism: 'none' },
          target: { id: 'tgt', alias: T, bootstrap: 'h2:9092', saslMechanism: 'none' },
          nodes: [{ id: 'cp', type: 'mm2-checkpoint', groups: 'only-this' }],
        },
      })
      .expect(200);
    assert.match(posted.body.text, /^source\.cluster\.alias=edited$/m);
    assert.match(posted.body.text, /^groups=only-this$/m);
    assert.match(posted.body.text, /^offset-syncs\.topic\.location=target$/m);
    assert.match(posted.body.text, /^replication\.policy\.class=org\.apache\.kafka\.connect\.mirror\.IdentityReplicationPolicy$/m);
    await nodes.helper.request().get('/mm2/export/nope').expect(404);
    const bad = await nodes.helper.request().get('/mm2/export/rep?format=xml').expect(400);
    assert.match(bad.body.error, /unknown format 'xml'/);
  });

  it('${VAR} in the replication node: deployed as the node resolves it; a value it refuses is refused by the export, in its words', async function () {
    const S = env.unique('vs');
    const T = env.unique('vt');
    const over = { src: { alias: S }, tgt: { alias: T }, rep: { offsetSyncsLocation: '${MM2_CONNECT_TEST_LOC}', replicationFactor: '${MM2_CONNECT_TEST_RF}' } };
    process.env.MM2_CONNECT_TEST_LOC = 'target';
    process.env.MM2_CONNECT_TEST_RF = '1';
    const rest = new ConnectRestClient({ url: worker.url });
    const name = `mm2-${S}-${T}-checkpoint`;
    try {
      await nodes.load(
        [
          { id: 'conn', type: 'mm2-connect', replication: 'rep', url: worker.url, urlType: 'str', deploySource: false, deployHeartbeat: false, pollSeconds: '0', wires: [['out']] },
          { id: 'cp', type: 'mm2-checkpoint', replication: 'rep', groups: env.unique('nobody'), d: true, wires: [[], []] },
          { id: 'out', type: 'helper' },
        ],
        { over },
      );
      const out = nodes.collect(nodes.helper.getNode('out'));
      const conn = nodes.helper.getNode('conn');
      const errors = [];
      conn.on('call:error', (call) => errors.push(String(call.args[0])));
      conn.receive({ payload: 'deploy' });
      // a refused export is an error of the action (to Catch nodes), not a message
      await env.eventually(() => errors.length > 0 || out.some((m) => m.action === 'deploy'), { timeout: 60000, what: 'the deploy result or error' });
      assert.deepEqual(errors, [], 'the export of ${MM2_CONNECT_TEST_LOC} and ${MM2_CONNECT_TEST_RF} is not refused');
      const deployed = out.find((m) => m.action === 'deploy').payload;
      assert.equal(deployed.ok, true, JSON.stringify(deployed));
      const cfg = await rest.getConfig(name);
      assert.equal(cfg['offset-syncs.topic.location'], 'target', 'LOC=target, not the default source');
      assert.equal(cfg['checkpoints.topic.replication.factor'], '1');
      conn.receive({ payload: 'delete' });
      await nextMessage(out, (m) => m.action === 'delete', 'delete result');
      await nodes.helper.unload();

      // a location the replication node refuses: the endpoint says so in its words and writes it as given
      process.env.MM2_CONNECT_TEST_LOC = 'middle';
      await nodes.load([], { over });
      const res = await nodes.helper.request().get('/mm2/export/rep?format=properties&connectors=checkpoint').expect(200);
      assert.deepEqual(res.body.problems, [{ property: 'offset-syncs.topic.location', reason: "'middle' is not one of 'source', 'target'" }]);
      assert.match(res.body.text, /^offset-syncs\.topic\.location=middle$/m);
      assert.doesNotMatch(res.body.text, /^offset-syncs\.topic\.location=source$/m);
    } finally {
      delete process.env.MM2_CONNECT_TEST_LOC;
      delete process.env.MM2_CONNECT_TEST_RF;
      await rest.delete(name).catch(() => undefined);
    }
  });

  it('the exported mm2.properties runs the real MirrorMaker 2 in dedicated mode: replicated records, checkpoint, synced group offset, heartbeats both ways', async function () {
    const S = env.unique('ds');
    const T = env.unique('dt');
    const topic = env.unique('payments');
    const group = env.unique('ledger');
    const srcAdmin = await adminOf('source');
    await srcAdmin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
    const producer = env.kafka('source').producer();
    await producer.connect();
    await producer.send({ topic, messages: Array.from({ length: 30 }, (_, i) => ({ value: `p-${i}` })) });
    await producer.disconnect();
    await srcAdmin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: '30' }] });
    await nodes.load(
      [
        { id: 'mirror', type: 'mm2-mirror', replication: 'rep', d: true, topics: topic, replicationFactor: '1', offsetLagMax: '0', offsetFlushIntervalMs: '1000', refreshTopicsIntervalSeconds: '2', wires: [[]] },
        { id: 'cp', type: 'mm2-checkpoint', replication: 'rep', d: true, groups: group, topics: topic, emitCheckpointsIntervalSeconds: '1', wires: [[], []] },
        { id: 'go', type: 'mm2-group-offsets', replication: 'rep', d: true, syncGroupOffsetsIntervalSeconds: '1', wires: [[]] },
        { id: 'hb', type: 'mm2-heartbeat', replication: 'rep', d: true, emitHeartbeatsEnabled: true, emitHeartbeatsIntervalSeconds: '1', wires: [[], []] },
      ],
      { over: { src: { alias: S }, tgt: { alias: T } } },
    );
    const text = (await nodes.helper.request().get('/mm2/export/rep?format=mm2').expect(200)).body.text;
    const props = Object.fromEntries(parseJavaProperties(text).entries);
    assert.equal(props.clusters, `${S}, ${T}`);
    assert.equal(props[`${S}->${T}.enabled`], 'true');
    assert.equal(props[`${S}->${T}.topics`], topic);
    assert.equal(props['offset.flush.interval.ms'], '1000');
    // exactly the exported file (the harness only adds what the file also sets)
    const mm2 = await startMirrorMaker({ source: env.cluster('source').bootstrap, target: env.cluster('target').bootstrap, aliases: [S, T], props });
    try {
      const recs = await env.eventually(async () => {
        const r = await readAll('target', `${S}.${topic}`);
        return r.length === 30 && r;
      }, { timeout: 90000, what: `30 records in ${S}.${topic}` });
      assert.deepEqual(recs.map((r) => r.value.toString()), Array.from({ length: 30 }, (_, i) => `p-${i}`));
      const cp = await env.eventually(async () => {
        const list = (await readAll('target', `${S}.checkpoints.internal`)).map((r) => decodeCheckpoint(r.key, r.value));
        return list.filter((c) => c.group === group && c.downstreamOffset === 30n).pop();
      }, { timeout: 90000, what: `a checkpoint ${group} 30 -> 30` });
      assert.deepEqual([cp.topic, cp.partition, cp.upstreamOffset], [`${S}.${topic}`, 0, 30n]);
      await env.eventually(async () => {
        const offs = await (await adminOf('target')).fetchOffsets({ groupId: group, topics: [`${S}.${topic}`] });
        return Number(offs[0]?.partitions.find((p) => p.partition === 0)?.offset) === 30;
      }, { timeout: 60000, what: `${group} synced to 30 on the target` });
      // both heartbeat herders run: S->T writes the target's heartbeats, T->S the source's (which S->T replicates)
      await env.eventually(async () => (await readAll('target', 'heartbeats')).map((r) => decodeHeartbeat(r.key, r.value)).some((h) => h.sourceClusterAlias === S && h.targetClusterAlias === T), { timeout: 60000, what: `Heartbeat(${S}, ${T}) on the target` });
      await env.eventually(async () => (await readAll('target', `${S}.heartbeats`)).map((r) => decodeHeartbeat(r.key, r.value)).some((h) => h.sourceClusterAlias === T && h.targetClusterAlias === S), { timeout: 60000, what: `Heartbeat(${T}, ${S}) replicated to ${S}.heartbeats` });
    } finally {
      await mm2.stop();
    }
  });

  it('a bad URL, an unset ${VAR} and a config MM2 would refuse give clear errors', async function () {
    const { freePort } = require('../../scripts/kafka/cluster');
    const port = await freePort();
    const S = env.unique('bs');
    const T = env.unique('bt');
    await nodes.load(
      [
        { id: 'down', type: 'mm2-connect', replication: 'rep', url: `http://127.0.0.1:${port}`, urlType: 'str', deployCheckpoint: false, pollSeconds: '0', wires: [['out']] },
        { id: 'nourl', type: 'mm2-connect', replication: 'rep', url: 'connect:8083', urlType: 'str', wires: [['out']] },
        { id: 'noenv', type: 'mm2-connect', replication: 'rep', url: 'http://${MM2_CONNECT_TEST_UNSET}:8083', urlType: 'str', wires: [['out']] },
        { id: 'refused', type: 'mm2-connect', replication: 'rep', url: worker.url, urlType: 'str', pollSeconds: '0', wires: [['out']] },
        { id: 'mirror', type: 'mm2-mirror', replication: 'rep', d: true, emitOffsetSyncsEnabled: false, wires: [[]] },
        { id: 'out', type: 'helper' },
      ],
      { over: { src: { alias: S }, tgt: { alias: T } } },
    );
    const out = nodes.collect(nodes.helper.getNode('out'));

    // Connect not listening there: the first poll's status, then an action's error (to Catch nodes)
    // statuses set so far, from the helper's spy on Node.prototype.status (some were set before we could wrap the node)
    const statusesOf = (n) => n.status.getCalls().filter((c) => c.thisValue === n).map((c) => c.args[0]);
    const lastStatusOf = (n) => statusesOf(n).pop();
    const down = nodes.helper.getNode('down');
    const errors = [];
    down.on('call:error', (call) => errors.push(String(call.args[0])));
    await env.eventually(
      () => statusesOf(down).find((s) => s.fill === 'red' && s.text === 'unreachable: connection refused'),
      { what: 'a red connection-refused status' },
    );
    down.receive({ payload: 'deploy' });
    const deployError = await env.eventually(() => errors.find((e) => /deploy failed/.test(e)), { what: 'the deploy error' });
    assert.equal(deployError, `Error: deploy failed: cannot reach Kafka Connect at http://127.0.0.1:${port}: connection refused (is a Connect worker running and listening there?)`);
    assert.equal(lastStatusOf(down).text, 'deploy failed: unreachable: connection refused');
    down.receive({ payload: 'explode' });
    await env.eventually(() => errors.find((e) => /unknown action 'explode' \(expected one of deploy, status, pause, resume, restart, delete\)/.test(e)), { what: 'the unknown-action error' });

    // not a URL / unset variable: red status from the start, naming the problem
    const nourl = nodes.helper.getNode('nourl');
    const noenv = nodes.helper.getNode('noenv');
    const errorsOf = (n) => n.error.getCalls().filter((c) => c.thisValue === n).map((c) => String(c.args[0]));
    assert.equal(lastStatusOf(nourl).fill, 'red');
    assert.match(lastStatusOf(nourl).text, /^Kafka Connect URL: 'connect:8083' must start/);
    assert.deepEqual(errorsOf(nourl), ["Kafka Connect URL: 'connect:8083' must start with http:// or https://"]);
    assert.equal(lastStatusOf(noenv).fill, 'red');
    assert.match(lastStatusOf(noenv).text, /^Kafka Connect URL: environment variable MM2_CONNECT/);
    assert.deepEqual(errorsOf(noenv), ['Kafka Connect URL: environment variable MM2_CONNECT_TEST_UNSET is not set']);

    // the mirror writes no offset syncs: MM2's checkpoint connector would refuse that; nothing is deployed
    const refused = nodes.helper.getNode('refused');
    const refusedErrors = [];
    refused.on('call:error', (call) => refusedErrors.push(String(call.args[0])));
    refused.receive({ payload: 'deploy' });
    const refusal = await env.eventually(() => refusedErrors.find((e) => /deploy failed/.test(e)), { what: 'the refused deploy' });
    assert.equal(refusal, "Error: deploy failed: the flow cannot be exported as MM2 connectors: emit.offset-syncs.enabled: MirrorCheckpointConnector can't run without offset syncs (emit.offset-syncs.enabled must not be false)");
    const list = (await worker.rest('GET', '/connectors')).json;
    assert.ok(!list.some((n) => n.startsWith(`mm2-${S}-`)), 'nothing deployed');
    assert.equal(out.length, 0);
  });
});
