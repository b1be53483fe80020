'use strict';
/**
 * What kafkajs logs through our client (kafka/client createKafka), with nothing set by the user:
 * the client's own logger (no namespace) is not printed as `kafkajs undefined:`, and a producer
 * made from our client does not make kafkajs warn about its default partitioner.
 */
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { createKafka } = require('../../dist/kafka/client');

const S = { alias: 'src', bootstrapServers: ['127.0.0.1:9'] };

function recorder() {
  /** @type {Array<[string, string]>} */
  const lines = [];
  return {
    lines,
    logger: {
      error: (m) => lines.push(['error', m]),
      warn: (m) => lines.push(['warn', m]),
      info: (m) => lines.push(['info', m]),
      debug: (m) => lines.push(['debug', m]),
    },
  };
}

describe('kafkajs logs through our client', function () {
  it("the client's own logger (no namespace) is printed as `kafkajs:`, never `kafkajs undefined:`", function () {
    const r = recorder();
    const kafka = createKafka(S, r.logger);
    kafka.logger().warn('a warning of the client itself');
    kafka.logger().namespace('Connection').warn('a warning of a connection');
    assert.deepEqual(r.lines, [
      ['warn', 'kafkajs: a warning of the client itself'],
      ['warn', 'kafkajs Connection: a warning of a connection'],
    ]);
  });

  it('a producer of our client makes kafkajs print no partitioner warning (no environment variable set); a plain kafkajs one does', function () {
    // kafkajs warns once per process: a fresh process, without KAFKAJS_NO_PARTITIONER_WARNING
    const env = { ...process.env };
    delete env.KAFKAJS_NO_PARTITIONER_WARNING;
    const client = path.join(__dirname, '..', '..', 'dist', 'kafka', 'client.js');
    const script = `
      const { createKafka } = require(${JSON.stringify(client)});
      const { Kafka } = require('kafkajs');
      const say = (m) => process.stdout.write(m + '\\n');
      const logger = { error: say, warn: say, info: say, debug: () => {} };
      createKafka({ alias: 'src', bootstrapServers: ['127.0.0.1:9'] }, logger).producer();
      createKafka({ alias: 'src', bootstrapServers: ['127.0.0.1:9'] }, logger).producer({ allowAutoTopicCreation: false });
      say('--- a plain kafkajs producer:');
      new Kafka({ brokers: ['127.0.0.1:9'] , logCreator: () => ({ log }) => say('kafkajs: ' + log.message) }).producer();
    `;
    const out = execFileSync(process.execPath, ['-e', script], { env, cwd: path.join(__dirname, '..', '..'), encoding: 'utf8' });
    const [ours, plain] = out.split('--- a plain kafkajs producer:');
    assert.equal(ours.trim(), '', `our producers logged:\n${ours}`);
    assert.match(plain, /switched default partitioner/, 'the check can see the warning');
  });
});
