'use strict';
/** The checks of a tls-config node's files (src/kafka/tls-files): what mm2-cluster refuses and names. */
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { tlsFileProblems, tlsNodeFiles } = require('../../dist/kafka/tls-files');

describe('tls-config files checked before a connection uses them', function () {
  const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const files = {};
  const read = (p) => {
    if (!(p in files)) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${p}'`), { code: 'ENOENT' });
    return Buffer.from(files[p]);
  };

  it('reads paths when any is set, else the uploaded files with their names', function () {
    assert.deepEqual(tlsNodeFiles({ ca: ' /x/ca.pem ', cert: '', key: '' }, { cadata: 'ignored', passphrase: 'pw' }), { ca: { file: '/x/ca.pem', uploaded: false }, passphrase: 'pw' });
    assert.deepEqual(tlsNodeFiles({ ca: '', cert: '', key: '', caname: 'ca.pem' }, { cadata: 'PEM' }), { ca: { file: 'ca.pem', uploaded: true, data: 'PEM' } });
    assert.deepEqual(tlsNodeFiles({ ca: '', cert: '', key: '' }, undefined), {});
  });

  it('an encrypted key: passphrase missing, passphrase wrong', function () {
    files['/k.pem'] = privateKey.export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'right' });
    const missing = tlsFileProblems({ key: { file: '/k.pem', uploaded: false }, cert: { file: '/nope.pem', uploaded: false } }, read);
    assert.deepEqual(missing.map((p) => [p.code, p.field]), [['not-found', 'cert'], ['passphrase-missing', 'key']]);
    const wrong = tlsFileProblems({ key: { file: '/k.pem', uploaded: false }, passphrase: 'wrong' }, read);
    assert.deepEqual(wrong.map((p) => p.code), ['cert-missing', 'passphrase-wrong']);
  });

  it('a wrong passphrase whose decryption pads validly by chance (about 1 in 300; OpenSSL says "unsupported", not "bad decrypt") is still a wrong passphrase', function () {
    // encrypted with 'right'; 'wrong97' decrypts it to garbage with a valid padding (found once, kept: the same file decrypts the same way)
    files['/garbage.pem'] =
      "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" +
      "MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAhPJEP0LAzI/AICCAAw\n" +
      "DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEJnHPLuIvrhRWvhDZyt2w2IEgZAM\n" +
      "suCnYZXivuhKW9wHO3kD6XRaa2RY5YxEmD4fy1YhFIkQYIOUD45Vu3GmgXlkbcrg\n" +
      "ttRv+PX3LLRMxZvB35LleCNmKnhGbnAbPFal7DELVs52wqRoR4ouwcLc5ZktxfHh\n" +
      "s3dhCr0enIY3R7rX9EZz6QzbKDmcZ38Uo5nCvPL0nC5xxdvrAuHk9YDHYqYjonQ=\n" +
      "-----END ENCRYPTED PRIVATE KEY-----\n";
    const crypto2 = require('node:crypto');
    assert.throws(() => crypto2.createPrivateKey({ key: files['/garbage.pem'], format: 'pem', passphrase: 'wrong97' }), (e) => !/bad decrypt/i.test(/** @type {Error} */ (e).message), 'the case this test is about: not "bad decrypt"');
    const wrong = tlsFileProblems({ key: { file: '/garbage.pem', uploaded: false }, passphrase: 'wrong97' }, read);
    assert.deepEqual(wrong.map((p) => p.code), ['cert-missing', 'passphrase-wrong']);
    assert.deepEqual(tlsFileProblems({ key: { file: '/garbage.pem', uploaded: false }, passphrase: 'right' }, read).map((p) => p.code), ['cert-missing'], 'the right passphrase opens it');
  });

  it('an empty file, a DER file, a folder', function () {
    files['/empty.pem'] = '\n';
    files['/der.crt'] = Buffer.from([0x30, 0x82, 0x01, 0x0a, 0x02, 0x01]);
    const probs = tlsFileProblems({ ca: { file: '/empty.pem', uploaded: false } }, read);
    assert.deepEqual(probs.map((p) => p.code), ['empty']);
    assert.deepEqual(tlsFileProblems({ ca: { file: '/der.crt', uploaded: false } }, read).map((p) => p.code), ['not-pem']);
    const dir = tlsFileProblems({ ca: { file: '/', uploaded: false } });
    assert.deepEqual(dir.map((p) => [p.code, p.detail]), [['unreadable', 'a folder, not a file']]);
  });

  it('nothing given: nothing to refuse', function () {
    assert.deepEqual(tlsFileProblems({}), []);
  });
});
