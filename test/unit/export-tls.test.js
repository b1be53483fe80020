'use strict';
/**
 * The Connect export (the /mm2/export endpoint, the mm2-connect deploy) checks the cluster nodes'
 * tls-config nodes as the runtime's mm2-cluster node does (issue 26, hostile trial): a missing or
 * garbage CA file, a certificate without its key, a reference to a TLS node that does not exist
 * are problems of the export, in the cluster node's words (the TLS node and the file), instead of
 * a config MM2 then fails on (or, for a missing node, one that trusts the JVM's default CAs).
 */
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { makeCertificates } = require('../../scripts/kafka/cluster');
const { exportConnectors } = require('../../dist/flows/export-connectors');
const { flowFromDefinitions, flowFromEditor } = require('../../dist/flows/definitions');
const { exportTlsCheck } = require('../../dist/nodes/shared/export-flow');
const { makeTranslate } = require('../../dist/nodes/shared/i18n');
const { tlsConfigProblems } = require('../../dist/nodes/shared/tls-check');

describe('the Connect export refuses a TLS configuration the runtime refuses, in the same words', function () {
  this.timeout(20000);
  let dir;
  let certs;
  const credentials = {};
  // Node-RED's runtime API as the export endpoint and the mm2-connect node use it (no catalog: our en-US one)
  const RED = /** @type {any} */ ({ _: (k) => k, nodes: { getCredentials: (id) => credentials[id] } });
  const t = makeTranslate(RED, 'mm2-replication');
  before(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mm2-export-tls-'));
    certs = makeCertificates(path.join(dir, 'certs'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The deployed definitions: the source cluster over TLS with TLS node `ref`, the tls-config node `tls1` (unless null). */
  function defs(tls, ref = 'tls1') {
    return [
      { id: 'rep', type: 'mm2-replication', source: 'src', target: 'tgt' },
      { id: 'src', type: 'mm2-cluster', alias: 'east', bootstrap: 'localhost:9093', usetls: true, tls: ref, saslMechanism: 'none' },
      { id: 'tgt', type: 'mm2-cluster', alias: 'west', bootstrap: 'localhost:9094', saslMechanism: 'none' },
      ...(tls ? [{ id: 'tls1', type: 'tls-config', name: 'orders CA', ca: '', cert: '', key: '', verifyservercert: true, ...tls }] : []),
    ];
  }
  function exported(tls, ref) {
    const input = flowFromDefinitions(defs(tls, ref), 'rep', (id) => credentials[id], false);
    return exportConnectors(input, { checkTls: exportTlsCheck(RED, t) });
  }
  const problems = (ex) => ex.problems.map((p) => `${p.property}: ${p.reason}`);
  /** The words the runtime's mm2-cluster node uses for the same TLS node. */
  const runtimeWords = (tls, ref = 'tls1') => tlsConfigProblems(makeTranslate(RED, 'mm2-cluster'), ref, defs(tls, ref).find((d) => d.id === ref), credentials[ref]).map((p) => p.text);

  it('a valid tls-config node (CA, certificate and key files): no problem, the CA is the trust store', function () {
    const ex = exported({ ca: certs.caFile, cert: certs.certFile, key: certs.keyFile });
    assert.deepEqual(ex.problems, []);
    const source = ex.connectors.find((c) => c.kind === 'source').config;
    assert.equal(source['source.cluster.ssl.truststore.location'], certs.caFile);
    assert.equal(source['source.cluster.security.protocol'], 'SSL');
  });

  it('a CA file that does not exist: refused, naming the TLS node, the file and the fix', function () {
    const missing = path.join(dir, 'no-such-ca.pem');
    const got = problems(exported({ ca: missing }));
    assert.deepEqual(got, [`source.cluster.ssl.truststore.location: TLS configuration 'orders CA' (tls1): CA certificate file ${missing} does not exist on the Node-RED host: correct the path in the TLS configuration`]);
    assert.deepEqual(got.map((p) => p.replace(/^[^ ]+: /, '')), runtimeWords({ ca: missing }), 'the runtime\'s words');
  });

  it('a CA file of random bytes: refused as not PEM (never OpenSSL\'s words)', function () {
    const garbage = path.join(dir, 'garbage-ca.pem');
    fs.writeFileSync(garbage, crypto.randomBytes(700));
    const got = problems(exported({ ca: garbage }));
    assert.equal(got.length, 1);
    assert.match(got[0], /^source\.cluster\.ssl\.truststore\.location: TLS configuration 'orders CA' \(tls1\): CA certificate file \S+garbage-ca\.pem is not PEM/);
    assert.doesNotMatch(got[0], /no start line/);
  });

  it('a certificate without its private key: refused on the key store property, naming the certificate file', function () {
    const got = problems(exported({ ca: certs.caFile, cert: certs.certFile }));
    assert.deepEqual(got.length, 1);
    assert.match(got[0], /^source\.cluster\.ssl\.keystore\.location: TLS configuration 'orders CA' \(tls1\): certificate file \S+client\.pem is given without its private key: give the private key too/);
  });

  it('an uploaded CA that is no certificate (its stored credentials read as the runtime reads them)', function () {
    credentials.tls1 = { cadata: fs.readFileSync(certs.keyFile, 'utf8') };
    try {
      const got = problems(exported({ caname: 'ca-upload.pem' }));
      assert.deepEqual(got, [`source.cluster.ssl.truststore.location: TLS configuration 'orders CA' (tls1): uploaded CA certificate 'ca-upload.pem' holds no certificate (it holds PRIVATE KEY): give the CA certificate in PEM`]);
    } finally {
      delete credentials.tls1;
    }
  });

  it('a reference to a TLS node that does not exist: refused (not the JVM\'s default trust store), also from the editor\'s flow', function () {
    const got = problems(exported(null, 'gone-tls'));
    assert.deepEqual(got, ["source.cluster.security.protocol: TLS configuration 'gone-tls' does not exist: choose an existing TLS configuration in the cluster node (or none, to trust the system's CAs)"]);
    const d = defs(null, 'gone-tls');
    const editor = flowFromEditor({ replication: d[0], source: d[1], target: d[2], nodes: [] }, () => undefined, false);
    assert.deepEqual(problems(exportConnectors(editor, { checkTls: exportTlsCheck(RED, t) })), got);
  });

  it('a disabled TLS node, and a node of another type: refused', function () {
    assert.match(problems(exported({ ca: certs.caFile, d: true })).join('\n'), /TLS configuration 'orders CA' \(tls1\) is disabled/);
    assert.match(problems(exported({ type: 'mqtt-broker' })).join('\n'), /TLS configuration 'orders CA' \(tls1\) is a mqtt-broker node, not a tls-config node/);
  });
});
