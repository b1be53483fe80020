'use strict';
/** Reading a whole topic of a test cluster, for the end-to-end tests. */
const env = require('./env');

/**
 * Every record of `topic` on cluster `kafkaName` (read_committed), as `{partition, offset, value}`,
 * once at least `expectAtLeast` have arrived. `lingerMs`: how long the consumer goes on reading
 * after that (records beyond the expected ones are returned too).
 * @returns {Promise<Array<{ partition: number, offset: bigint, value: string }>>}
 */
async function readTopic(kafkaName, topic, expectAtLeast, { lingerMs = 0, timeout = 30000 } = {}) {
  const consumer = env.kafka(kafkaName).consumer({ groupId: env.unique('__e2e-read') });
  /** @type {Array<{ partition: number, offset: bigint, value: string }>} */
  const out = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ eachMessage: async ({ partition, message }) => { out.push({ partition, offset: BigInt(message.offset), value: String(message.value) }); } });
  await env.eventually(() => out.length >= expectAtLeast, { timeout, what: `${expectAtLeast} records of ${topic} on ${kafkaName}` });
  if (lingerMs > 0) await new Promise((r) => setTimeout(r, lingerMs));
  await consumer.disconnect();
  return out;
}

module.exports = { readTopic };
