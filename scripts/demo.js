'use strict';
/**
 * The demo (run through scripts/demo.sh): two local Kafka clusters on the ports the examples use
 * (source 127.0.0.1:19092, target 127.0.0.1:29092), sample traffic (a producer, and consumer
 * groups committing on the source at different speeds), and Node-RED with this package and the
 * readiness-dashboard example deployed: the full failover example's nodes and settings, and a
 * FlowFuse Dashboard 2.0 page of every group's failover readiness (the dashboard package is
 * installed into Node-RED's user folder, from a cache: scripts/dashboard.js). Every 10 s it
 * prints each group's committed offsets on the source next to the translated offsets the flow
 * wrote on the target. Ctrl-C stops everything.
 *
 * Options: --port N (Node-RED port, default 1880), --example NAME (default readiness-dashboard;
 *          full-failover: the same flow without the dashboard),
 *          --duration S (stop by itself after S seconds; for smoke tests),
 *          --kafka-ports S,T (broker ports of source and target, default 19092,29092; 0 = a free
 *          port, and the flow's cluster nodes are pointed at the ports used),
 *          --instances N (1-5, default 1: N Node-RED processes with the same flow, on ports
 *          --port, --port + 1, ...: they share the replication through Kafka's group protocol;
 *          kill one with the pid printed and watch the others take its share).
 *
 * Ctrl-C (SIGINT) or SIGTERM at any moment, also while it starts: Node-RED is closed, the
 * brokers are stopped and their data folders and Node-RED's user folder are removed.
 */
const fs = require('node:fs');
const path = require('node:path');
const { Kafka, logLevel } = require('kafkajs');
const { startClusters } = require('./kafka/cluster');
const { startNodeRed } = require('./node-red-runner');

const args = process.argv.slice(2);
const opt = (n, d) => {
  const i = args.indexOf(n);
  return i >= 0 ? args[i + 1] : d;
};
const PORT = Number(opt('--port', 1880));
const EXAMPLE = opt('--example', 'readiness-dashboard');
const DURATION = Number(opt('--duration', 0));
const INSTANCES = (() => {
  const text = opt('--instances', '1');
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 5) {
    console.error(`--instances '${text}': give a whole number from 1 to 5 (Node-RED processes sharing the flow)`);
    process.exit(2);
  }
  return n;
})();
const DEFAULT_PORTS = { source: 19092, target: 29092 };
const KAFKA_PORTS = (() => {
  const text = opt('--kafka-ports', `${DEFAULT_PORTS.source},${DEFAULT_PORTS.target}`);
  const p = text.split(',').map((x) => Number(x.trim()));
  if (p.length !== 2 || !p.every((n) => Number.isInteger(n) && n >= 0 && n <= 65535)) {
    console.error(`--kafka-ports '${text}': give two ports, source,target (0 = a free port)`);
    process.exit(2);
  }
  return { source: p[0], target: p[1] };
})();

const TOPICS = [
  { topic: 'orders', numPartitions: 3 },
  { topic: 'billing', numPartitions: 2 },
];
const GROUPS = [
  { groupId: 'orders-fulfilment', topics: ['orders'], delayMs: 0 },
  { groupId: 'orders-analytics', topics: ['orders'], delayMs: 150 },
  { groupId: 'billing-ledger', topics: ['billing'], delayMs: 20 },
];

// What to undo, in reverse order, when the demo stops, each with what it waits for (printed, so
// that a Ctrl-C is never a silent wait). Registered before anything starts, so a Ctrl-C during
// start-up also stops what already runs and removes its folders.
/** @type {{ what: string, stop: () => unknown }[]} */
const stops = [];
let stopping = false;
/** @type {string | null} */
let stoppingNow = null;
const stopAll = async (code = 0) => {
  if (stopping) {
    // a second Ctrl-C: say what is still under way (stopping half-way would leave data behind)
    if (stoppingNow) console.log(`still stopping: ${stoppingNow}`);
    return;
  }
  stopping = true;
  console.log(`\nstopping the demo (${stops.length} steps; each step says what it waits for)...`);
  while (stops.length > 0) {
    const step = /** @type {{ what: string, stop: () => unknown }} */ (stops.pop());
    stoppingNow = step.what;
    const t0 = Date.now();
    process.stdout.write(`  ${step.what}... `);
    try {
      await step.stop();
      console.log(`done (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    } catch (e) {
      console.log(`failed: ${e && e.message ? e.message : e} (stopping the rest)`);
    }
  }
  console.log('stopped: nothing of the demo runs any more and its folders are removed.');
  process.exit(code);
};
process.on('SIGINT', () => stopAll(130));
process.on('SIGTERM', () => stopAll(143));
/** Records how to undo a step that just finished; when a stop already began, undoes it now. */
function started(what, stop) {
  stops.push({ what, stop });
  stillStarting();
}
/** Ends the start-up when a stop began while a step was under way (the stop undoes what is recorded). */
function stillStarting() {
  if (stopping) throw new Error('stopping');
}

async function main() {
  const ports = `source :${KAFKA_PORTS.source || '(free port)'}, target :${KAFKA_PORTS.target || '(free port)'}`;
  console.log(`starting two Kafka clusters (${ports})...`);
  const starting = startClusters(['source', 'target'], {
    ports: { source: { broker: KAFKA_PORTS.source || undefined }, target: { broker: KAFKA_PORTS.target || undefined } },
  });
  // a cluster that is still starting when a stop comes is stopped once it is up
  const clustersWhat = 'stopping both Kafka brokers and removing their data folders (a broker writes its logs out first, up to about 40 s)';
  stops.push({ what: clustersWhat, stop: () => starting.then((c) => c.stop(), () => undefined) });
  const clusters = await starting;
  stillStarting();

  const source = new Kafka({ clientId: 'mm2-demo', brokers: [clusters.source.bootstrap], logLevel: logLevel.NOTHING });
  const target = new Kafka({ clientId: 'mm2-demo', brokers: [clusters.target.bootstrap], logLevel: logLevel.NOTHING });
  const sAdmin = source.admin();
  const tAdmin = target.admin();
  await sAdmin.connect();
  await tAdmin.connect();
  started('disconnecting the demo\'s admin clients', () => Promise.all([sAdmin.disconnect(), tAdmin.disconnect()]));
  await sAdmin.createTopics({ topics: TOPICS, waitForLeaders: true });

  // sample traffic: ~40 records/s over both topics
  const producer = source.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  started('stopping the sample producer', () => producer.disconnect());
  let n = 0;
  const produce = setInterval(() => {
    const batch = [];
    for (let i = 0; i < 4; i++, n++) batch.push({ key: `customer-${n % 17}`, value: JSON.stringify({ order: n, at: Date.now() }) });
    producer
      .sendBatch({ topicMessages: [{ topic: 'orders', messages: batch.slice(0, 3) }, { topic: 'billing', messages: batch.slice(3) }] })
      .catch(() => undefined);
  }, 100);
  started('stopping the sample traffic', () => clearInterval(produce));

  for (const g of GROUPS) {
    const c = source.consumer({ groupId: g.groupId, allowAutoTopicCreation: false });
    await c.connect();
    started(`stopping consumer group ${g.groupId} (it leaves the group)`, () => c.disconnect());
    await c.subscribe({ topics: g.topics, fromBeginning: true });
    await c.run({
      autoCommitInterval: 1000,
      eachMessage: async () => {
        if (g.delayMs) await new Promise((r) => setTimeout(r, g.delayMs));
      },
    });
  }

  const flowFile = path.join(__dirname, '..', 'examples', `${EXAMPLE}.json`);
  if (!fs.existsSync(flowFile)) throw new Error(`example ${flowFile} not found`);
  const flows = JSON.parse(fs.readFileSync(flowFile, 'utf8'));
  for (const n of flows) {
    // the examples name the default ports; point them at the brokers started
    for (const name of ['source', 'target']) {
      if (n.type === 'mm2-cluster' && n.bootstrap === `127.0.0.1:${DEFAULT_PORTS[name]}`) n.bootstrap = clusters[name].bootstrap;
    }
  }
  // an example with dashboard widgets gets FlowFuse Dashboard 2.0 in Node-RED's user folder
  const dashboard = flows.some((n) => typeof n.type === 'string' && n.type.startsWith('ui-'));
  const what = INSTANCES === 1 ? 'Node-RED' : `${INSTANCES} Node-RED instances`;
  console.log(`starting ${what} with @kafka-mm2/node-red${dashboard ? ' and @flowfuse/node-red-dashboard' : ''} and examples/${EXAMPLE}.json...`);
  /** @type {Awaited<ReturnType<typeof startNodeRed>>[]} */
  const instances = [];
  for (let i = 0; i < INSTANCES; i++) {
    const tag = INSTANCES === 1 ? 'node-red' : `node-red ${i + 1}`;
    // Node-RED's own output stays quiet; its warnings and errors are printed here, each line marked
    const onWarning = (text) => console.log(text.split('\n').map((l) => `${tag} | ${l}`).join('\n'));
    const nodeRed = startNodeRed({ port: PORT === 0 ? 0 : PORT + i, flows, dashboard, quiet: true, logLevel: 'warn', onWarning });
    const nodeRedWhat = `closing ${INSTANCES === 1 ? 'Node-RED' : `Node-RED ${i + 1}`} and removing its user folder (its nodes finish their writes first, up to 15 s)`;
    stops.push({ what: nodeRedWhat, stop: () => nodeRed.then((nr) => nr.stop(), () => undefined) });
    const nr = await nodeRed;
    stillStarting();
    instances.push(nr);
    if (INSTANCES > 1) {
      // an instance killed on purpose (the point of several): said once, the demo goes on with the others
      nr.process.once('exit', (code, signal) => {
        if (stopping) return;
        console.log(`\n${tag} (pid ${nr.process.pid}) exited (${signal || code}): the other instances take its share of the replication (at once when it left, within the session timeout when it was killed); the demo goes on\n`);
      });
    }
  }
  for (const [i, nr] of instances.entries()) {
    const label = INSTANCES === 1 ? 'Node-RED editor' : `Node-RED ${i + 1}     `;
    console.log(`${i === 0 ? '\n' : ''}${label}: ${nr.url}   (the flow is deployed; open it to see the nodes' status${INSTANCES > 1 ? `; pid ${nr.process.pid}` : ''})`);
    for (const page of dashboardPages(flows)) console.log(`Dashboard      : ${nr.url.replace(/\/$/, '')}${page.path}   (${page.name})`);
  }
  if (INSTANCES > 1) {
    console.log(`The ${INSTANCES} instances run the same flow and split the work through Kafka's group protocol: each node's status shows its share.`);
    console.log(`Try: kill -9 ${instances[INSTANCES - 1].process.pid}   (the others take its share; nothing is skipped on the target)`);
  }
  console.log(`source cluster : ${clusters.source.bootstrap}    target cluster: ${clusters.target.bootstrap}`);
  console.log('Every 10 s: committed offsets per group, source -> target (translated by the flow). Ctrl-C stops.\n');

  const report = async () => {
    for (const g of GROUPS) {
      const rows = [];
      for (const topic of g.topics) {
        const s = await sAdmin.fetchOffsets({ groupId: g.groupId, topics: [topic] }).catch(() => []);
        const t = await tAdmin.fetchOffsets({ groupId: g.groupId, topics: [`source.${topic}`] }).catch(() => []);
        for (const p of s[0] ? s[0].partitions : []) {
          const tp = t[0] ? t[0].partitions.find((x) => x.partition === p.partition) : undefined;
          rows.push(`${topic}-${p.partition} ${p.offset} -> ${tp && tp.offset !== '-1' ? tp.offset : '(none yet)'}`);
        }
      }
      console.log(`${new Date().toISOString().slice(11, 19)} ${g.groupId.padEnd(18)} ${rows.join('   ')}`);
    }
  };
  const timer = setInterval(() => report().catch((e) => console.log(`report failed: ${e.message}`)), 10000);
  started('stopping the 10 s report', () => clearInterval(timer));
  if (DURATION > 0) setTimeout(() => stopAll(0), DURATION * 1000);
}

/**
 * The dashboard pages of a flow: each ui-page's name and its path under its ui-base's.
 * @param {any[]} flows
 * @returns {{ name: string, path: string }[]}
 */
function dashboardPages(flows) {
  const byId = new Map(flows.map((n) => [n.id, n]));
  return flows.filter((n) => n.type === 'ui-page').map((p) => {
    const base = byId.get(p.ui);
    return { name: p.name, path: `${(base && base.path) || '/dashboard'}${p.path}` };
  });
}

main().catch((e) => {
  if (stopping) return; // a signal's stop runs and exits
  console.error(e.stack || e.message);
  stopAll(1);
});
