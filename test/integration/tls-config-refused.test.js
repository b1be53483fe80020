'use strict';
/**
 * An mm2-cluster node whose TLS configuration (Node-RED's core tls-config node) cannot be used is
 * refused (issue 26, hostile trial): a missing CA file, a CA file of random bytes, a certificate
 * without its key, a key that is not the certificate's, an uploaded CA that is no certificate, a
 * reference to a TLS node that does not exist. Before, the cluster node connected with the
 * system's CAs without a word (Node-RED's tls-config node marks itself invalid and hands out no
 * CA), or OpenSSL's "PEM routines::no start line" reached the status. Now the flow node using it
 * is red and logs an error naming the TLS node (its name and id), the file and the fix, and the
 * cluster node has no connection; the Connect export of the flow lists the same refusal. A valid tls-config node (file paths) still connects to the TLS
 * listener of a real broker whose certificate only the test CA vouches for.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const env = require('../harness/env');
const nodes = require('../harness/nodes');
const { useSecuredCluster } = require('../harness/secured');
const { statusCalls } = require('../harness/checkpoint-node');
const { DEFAULT_KAFKA_VERSION } = require('../../scripts/kafka/cluster');
const tlsModule = require('@node-red/nodes/core/network/05-tls.js');

describe(`mm2-cluster refuses a TLS configuration it cannot use, naming the TLS node and the file (Kafka ${process.env.KAFKA_VERSION || DEFAULT_KAFKA_VERSION})`, function () {
  this.timeout(120000);
  const secured = useSecuredCluster('tls-refused', { tls: true });
  const tag = env.unique('tlscfg');
  let dir;
  before(async function () {
    await nodes.startServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mm2-tls-refused-'));
  });
  afterEach(() => nodes.helper.unload());
  after(async function () {
    await nodes.stopServer();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Deploys a tls-config node `tls` (fields and credentials), a source cluster on the SSL listener
   * using TLS node `ref` (default the one given), the plain target, and a heartbeat node.
   * @param {object | null} tls
   * @param {{ ref?: string, credentials?: object }} [opts]
   */
  async function deploy(tls, { ref, credentials } = {}) {
    const flow = [
      ...(tls ? [{ id: 'tls1', type: 'tls-config', name: 'orders CA', cert: '', key: '', ca: '', verifyservercert: true, ...tls }] : []),
      ...nodes.configNodes({
        src: { alias: `${tag}-src`, bootstrap: secured.cluster.listeners.SSL, usetls: true, tls: ref ?? 'tls1' },
        tgt: { alias: `${tag}-tgt` },
      }),
      { id: 'hb', type: 'mm2-heartbeat', replication: 'rep', emitHeartbeatsEnabled: true, emitHeartbeatsIntervalSeconds: '1', watch: false, wires: [[], []] },
    ];
    await nodes.helper.load([tlsModule, ...nodes.modules], flow, credentials ? { tls1: credentials } : {});
    return { hb: nodes.helper.getNode('hb'), src: nodes.helper.getNode('src') };
  }
  const errorsOf = (node) => node.error.getCalls().filter((c) => c.thisValue === node).map((c) => String(c.args[0]));
  const file = (name, content) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, content);
    return p;
  };

  /**
   * The cluster node is refused: no connection, the heartbeat node red, both log the reason; each matches `want`.
   * @param {object | null} tls
   * @param {RegExp} want
   * @param {{ ref?: string, credentials?: object }} [opts]
   */
  async function refused(tls, want, opts) {
    const { hb, src } = await deploy(tls, opts);
    assert.equal(src.connection, null, 'no connection is made');
    assert.ok(src.problems.some((p) => want.test(p)), `the cluster node's problems name it: ${JSON.stringify(src.problems)}`);
    // the status (cut at 60 characters) begins the refusal: the TLS node and the file's kind; the log has it whole
    const red = statusCalls(hb).find((s) => s.fill === 'red');
    const shown = red ? String(red.text).replace(/…$/, '') : '';
    assert.ok(/^TLS configuration '(orders CA' \(tls1\)|gone-tls')/.test(shown) && src.problems.some((p) => p.startsWith(shown) && want.test(p)), `a red status naming it: ${JSON.stringify(statusCalls(hb))}`);
    assert.ok(!statusCalls(hb).some((s) => s.fill === 'green'), 'never green');
    assert.ok(errorsOf(src).some((l) => want.test(l)), `the cluster node logs it: ${errorsOf(src).join(' | ')}`);
    assert.ok(errorsOf(hb).some((l) => want.test(l)), `the heartbeat node logs it: ${errorsOf(hb).join(' | ')}`);
    for (const s of [...src.problems, ...errorsOf(hb)]) assert.doesNotMatch(s, /PEM routines|no start line/, 'no raw OpenSSL words');
    // the Connect export of the same flow is refused in the same words, not handed to MM2
    const exported = await nodes.helper.request().get('/mm2/export/rep?format=json').expect(200);
    const reasons = exported.body.problems.map((p) => p.reason);
    assert.ok(reasons.some((r) => want.test(r) && src.problems.includes(r)), `the export names it as the cluster node does: ${JSON.stringify(exported.body.problems)}`);
    return src.problems.join('; ');
  }

  it('a valid tls-config node (CA file path) connects to the TLS listener: the heartbeat node goes green', async function () {
    const { hb, src } = await deploy({ ca: secured.cluster.tls.caFile });
    assert.deepEqual(src.problems, []);
    assert.ok(src.connection.settings.tls.ca, 'the CA is handed to the client');
    await env.eventually(() => statusCalls(hb).some((s) => s.fill === 'green'), { timeout: 60000, what: 'a green heartbeat status over TLS' })
      .catch((e) => assert.fail(`${e.message}: ${JSON.stringify(statusCalls(hb))}; errors ${errorsOf(hb).join(' | ')}`));
  });

  it('a CA file that does not exist: refused, naming the TLS node, the path and the fix (not the system CAs)', async function () {
    const missing = path.join(dir, 'no-such-ca.pem');
    const text = await refused({ ca: missing }, new RegExp(`TLS configuration 'orders CA' \\(tls1\\): CA certificate file ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} does not exist`));
    assert.match(text, /correct the path in the TLS configuration/);
  });

  it('a CA file of random bytes: refused as "not PEM", naming the file, never OpenSSL\'s "no start line"', async function () {
    const garbage = file('garbage-ca.pem', crypto.randomBytes(700));
    const text = await refused({ ca: garbage }, /TLS configuration 'orders CA' \(tls1\): CA certificate file \S*garbage-ca\.pem is not PEM/);
    assert.match(text, /give the CA certificate in PEM/);
  });

  it('a PEM CA file whose certificate is corrupt: refused, naming the file', async function () {
    const body = Buffer.from(secured.cluster.tls.ca.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64');
    body.writeUInt8(0x05, 1); // the outer SEQUENCE's length: 5 bytes, the rest left over
    const broken = file('broken-ca.pem', `-----BEGIN CERTIFICATE-----\n${body.toString('base64').match(/.{1,64}/g).join('\n')}\n-----END CERTIFICATE-----\n`);
    await refused({ ca: broken }, /TLS configuration 'orders CA' \(tls1\): CA certificate file \S*broken-ca\.pem holds a certificate that does not parse/);
  });

  it('a client certificate without its private key: refused, naming the certificate file and the fix', async function () {
    const text = await refused({ ca: secured.cluster.tls.caFile, cert: secured.cluster.tls.certFile }, /TLS configuration 'orders CA' \(tls1\): certificate file \S*client\.pem is given without its private key/);
    assert.match(text, /give the private key too/);
  });

  it('a private key that is not the certificate\'s: refused, naming both files', async function () {
    const otherKey = file('other.key', crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }));
    await refused({ ca: secured.cluster.tls.caFile, cert: secured.cluster.tls.certFile, key: otherKey }, /TLS configuration 'orders CA' \(tls1\): private key file \S*other\.key is not the key of certificate \S*client\.pem/);
  });

  it('an uploaded CA that is no certificate (a private key): refused, naming the uploaded file', async function () {
    await refused({ caname: 'ca-upload.pem' }, /TLS configuration 'orders CA' \(tls1\): uploaded CA certificate 'ca-upload\.pem' holds no certificate \(it holds PRIVATE KEY\)/, { credentials: { cadata: secured.cluster.tls.key } });
  });

  it('a reference to a TLS node that does not exist: refused, naming the reference', async function () {
    const text = await refused(null, /TLS configuration 'gone-tls' does not exist/, { ref: 'gone-tls' });
    assert.match(text, /choose an existing TLS configuration in the cluster node/);
  });

  it('a reference to a disabled TLS node: refused, saying it is disabled', async function () {
    await refused({ ca: secured.cluster.tls.caFile, d: true }, /TLS configuration 'orders CA' \(tls1\) is disabled/);
  });
});
