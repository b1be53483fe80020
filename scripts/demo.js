'use strict';
// Placeholder until the Node-RED nodes land (see the nodes issue): starts the two demo clusters.
const { startClusters } = require('./kafka/cluster');
(async () => {
  const clusters = await startClusters(['source', 'target'], { ports: { source: { broker: 19092 }, target: { broker: 29092 } } });
  console.log(`source cluster: ${clusters.source.bootstrap}\ntarget cluster: ${clusters.target.bootstrap}`);
  console.log('The Node-RED part of the demo comes with the nodes. Press Ctrl-C to stop the clusters.');
  setInterval(() => {}, 1 << 30);
})().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
