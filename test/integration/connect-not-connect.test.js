'use strict';
/**
 * mm2-connect pointed at a URL that answers, but not as Kafka Connect (a web page: HTML), issue
 * 26, hostile configuration trial. It used to read the HTML as "not deployed", take a deploy as
 * done and poll its states for 30 s (three requests a second). Now: red "not Kafka Connect" with
 * the content type and the first characters, the action fails at its first answer, and the node
 * asks again only at its poll interval. A real Node-RED (the test helper) and a real HTTP server.
 */
const assert = require('node:assert/strict');
const http = require('node:http');
const env = require('../harness/env');
const nodes = require('../harness/nodes');

const PAGE = '<!DOCTYPE html>\n<html><head><title>Welcome</title></head><body>It works!</body></html>';

describe('mm2-connect: a URL that answers HTML, not Kafka Connect', function () {
  this.timeout(90000);
  /** @type {http.Server} */
  let server;
  /** @type {Array<{ method: string, url: string }>} */
  const requests = [];
  let url = '';

  before(async function () {
    server = http.createServer((req, res) => {
      requests.push({ method: req.method ?? '', url: req.url ?? '' });
      req.resume();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
    url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
    await nodes.startServer();
  });
  after(async function () {
    await nodes.helper.unload();
    await nodes.stopServer();
    await new Promise((resolve) => server.close(() => resolve(undefined)));
  });

  it('red "not Kafka Connect" naming the content type and first characters; a deploy fails at its first answer; polls only at the interval', async function () {
    const S = env.unique('html');
    await nodes.load(
      [
        { id: 'html', type: 'mm2-connect', replication: 'rep', url, urlType: 'str', deployOnStart: false, pollSeconds: '2', wires: [['out']] },
        { id: 'out', type: 'helper' },
      ],
      { over: { src: { alias: S } } },
    );
    const node = nodes.helper.getNode('html');
    const statuses = () => node.status.getCalls().filter((c) => c.thisValue === node).map((c) => c.args[0]);
    const errors = [];
    node.on('call:error', (call) => errors.push(String(call.args[0])));
    const notConnect = 'not Kafka Connect: text/html "<!DOCTYPE html> <html><head><title>Welcome</title>…"';
    const red = await env.eventually(() => statuses().find((s) => s.fill === 'red' && /^not Kafka Connect/.test(s.text)), { what: `the red status (${statuses().map((s) => s.text).join(' | ')})` });
    assert.equal(red.text, notConnect.slice(0, 59) + '…');
    assert.deepEqual(statuses().filter((s) => /not deployed/.test(s.text ?? '')), [], 'never "not deployed"');

    // a deploy: its first answer (the PUT of a connector config) ends it, no wait for states
    const before = requests.length;
    node.receive({ payload: 'deploy' });
    const deployError = await env.eventually(() => errors.find((e) => /deploy failed/.test(e)), { what: 'the deploy error' });
    assert.match(deployError, new RegExp(`^Error: deploy failed: ${url.replace(/\./g, '\\.')} answers, but not as Kafka Connect's REST API \\(PUT /connectors/[^ ]+/config: HTTP 200, text/html, starting "<!DOCTYPE html> <html>.*"\\): check the Connect URL`));
    const deployRequests = requests.slice(before).filter((r) => r.method === 'PUT');
    assert.equal(deployRequests.length, 1, `one request, then the failure: ${JSON.stringify(requests.slice(before))}`);
    assert.match(statuses().at(-1).text, /^deploy failed: not Kafka Connect: text\/html/);
    assert.equal(statuses().at(-1).fill, 'red');

    // the polls go on at the node's interval: one request each (the first answer ends it), none between
    const n = requests.length;
    await env.eventually(() => requests.length >= n + 3, { what: 'three more polls', timeout: 60000 });
    const polls = requests.slice(n);
    assert.deepEqual([...new Set(polls.map((r) => r.method))], ['GET']);
    assert.ok(polls.every((r) => /^\/connectors\/[^/]+\/status$/.test(r.url)), JSON.stringify(polls));
    assert.ok(polls.every((r) => r.url === polls[0].url), `each poll stops at its first connector: ${JSON.stringify(polls)}`);
  });
});
