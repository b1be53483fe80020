/**
 * The files of a Node-RED `tls-config` node, checked before a Kafka connection uses them: Node-RED's
 * own node only reads them, and when it cannot (a missing file, a certificate without its key) it
 * marks itself invalid and hands out no CA at all, so a client using it would trust the system's
 * CAs without a word; bytes that are no certificate reach OpenSSL, whose words ("PEM
 * routines::no start line") say nothing about which node or file. This reads what the node reads
 * (its file paths, else its uploaded certificates) and says, per file, what is wrong.
 *
 * Node.js's TLS takes PEM only (ca, cert, key); an encrypted key needs the node's passphrase.
 */
import * as fs from 'node:fs';
import * as crypto from 'node:crypto';
import * as tls from 'node:tls';

/** The three files of a tls-config node (its field names). */
export type TlsFileField = 'ca' | 'cert' | 'key';

/** One file as the node holds it: a path on the Node-RED host, or an uploaded file (its name, its text). */
export interface TlsFileSource {
  /** The path, or the uploaded file's name (empty when the node does not say). */
  file: string;
  uploaded: boolean;
  /** The text of an uploaded file (a path is read here). */
  data?: string | Buffer;
}

/** What a tls-config node holds, from its definition and credentials. */
export interface TlsNodeFiles {
  ca?: TlsFileSource;
  cert?: TlsFileSource;
  key?: TlsFileSource;
  passphrase?: string;
}

/**
 * A problem with a tls-config node's files, for the words of the node that uses it:
 * - `key-missing`: a certificate without its private key; `cert-missing`: a key without its certificate
 * - `not-found`, `unreadable` (detail: the system's words), `empty`
 * - `not-pem`: no `-----BEGIN ...-----` line (DER, or no certificate/key at all)
 * - `no-certificate`: PEM blocks, but none a certificate (detail: what it holds)
 * - `bad-certificate`: a certificate block that does not parse (detail: OpenSSL's words)
 * - `passphrase-missing`, `passphrase-wrong`, `bad-key` (detail)
 * - `key-mismatch`: the private key is not the certificate's
 * - `refused`: Node.js's TLS refuses the set (detail: OpenSSL's words); checked last
 */
export interface TlsFileProblem {
  code: 'key-missing' | 'cert-missing' | 'not-found' | 'unreadable' | 'empty' | 'not-pem' | 'no-certificate' | 'bad-certificate' | 'passphrase-missing' | 'passphrase-wrong' | 'bad-key' | 'key-mismatch' | 'refused';
  /** The file concerned (for `key-missing`: the certificate's; `refused`: undefined). */
  field?: TlsFileField;
  file?: string;
  uploaded?: boolean;
  detail?: string;
}

/** Reads the files of a tls-config node as Node-RED's node does: the paths when any is set, else the uploaded files. */
export function tlsNodeFiles(def: Readonly<Record<string, unknown>>, credentials: Readonly<Record<string, unknown>> | undefined): TlsNodeFiles {
  const s = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
  const out: TlsNodeFiles = {};
  const passphrase = s(credentials?.passphrase);
  if (passphrase) out.passphrase = passphrase;
  const fields: TlsFileField[] = ['ca', 'cert', 'key'];
  if (fields.some((f) => s(def[f]) !== '')) {
    for (const f of fields) if (s(def[f])) out[f] = { file: s(def[f]), uploaded: false };
    return out;
  }
  for (const f of fields) {
    const data = credentials?.[`${f}data`];
    if (typeof data === 'string' && data !== '') out[f] = { file: s(def[`${f}name`]), uploaded: true, data };
  }
  return out;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** The first line of an OpenSSL or Node.js error, without its `error:1E08010C:` prefix. */
function words(e: unknown): string {
  const m = (e as { message?: string } | null)?.message ?? String(e);
  return m.split('\n')[0].replace(/^error:[0-9A-F]+:/, '').trim();
}

/**
 * The problems of a tls-config node's files (empty: fine). `read` reads a path (tests).
 * One problem per file at most, then, when every file passes, the key against the certificate and
 * what Node.js's TLS makes of them together.
 */
export function tlsFileProblems(files: TlsNodeFiles, read: (p: string) => Buffer = (p) => fs.readFileSync(p)): TlsFileProblem[] {
  const problems: TlsFileProblem[] = [];
  const where = (f: TlsFileField) => ({ field: f, file: files[f]!.file, uploaded: files[f]!.uploaded });
  if (files.cert && !files.key) problems.push({ code: 'key-missing', ...where('cert') });
  if (files.key && !files.cert) problems.push({ code: 'cert-missing', ...where('key') });
  const content: Partial<Record<TlsFileField, Buffer>> = {};
  for (const f of ['ca', 'cert', 'key'] as const) {
    const src = files[f];
    if (!src) continue;
    let buf: Buffer;
    if (src.uploaded) buf = Buffer.isBuffer(src.data) ? src.data : Buffer.from(String(src.data ?? ''), 'utf8');
    else {
      try {
        buf = read(src.file);
      } catch (e) {
        const code = (e as { code?: string }).code;
        problems.push({ code: code === 'ENOENT' ? 'not-found' : 'unreadable', ...where(f), detail: code === 'EISDIR' ? 'a folder, not a file' : words(e) });
        continue;
      }
    }
    if (buf.toString('utf8').trim() === '') {
      problems.push({ code: 'empty', ...where(f) });
      continue;
    }
    const text = buf.toString('latin1');
    const blocks = [...text.matchAll(PEM_BLOCK)];
    if (blocks.length === 0) {
      problems.push({ code: 'not-pem', ...where(f) });
      continue;
    }
    if (f === 'key') {
      try {
        crypto.createPrivateKey({ key: buf, format: 'pem', ...(files.passphrase ? { passphrase: files.passphrase } : {}) });
      } catch (e) {
        const code = (e as { code?: string }).code;
        const msg = words(e);
        // an encrypted key without a passphrase: OpenSSL's prompt is "interrupted or cancelled"
        const encrypted = /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(text);
        if (!files.passphrase && (encrypted || code === 'ERR_MISSING_PASSPHRASE')) problems.push({ code: 'passphrase-missing', ...where(f) });
        else if (files.passphrase && encrypted && (/bad decrypt|decrypt/i.test(msg) || decryptsToGarbage(buf))) problems.push({ code: 'passphrase-wrong', ...where(f) });
        else problems.push({ code: 'bad-key', ...where(f), detail: msg });
        continue;
      }
    } else {
      const certs = blocks.filter((b) => b[1] === 'CERTIFICATE' || b[1] === 'TRUSTED CERTIFICATE');
      if (certs.length === 0) {
        problems.push({ code: 'no-certificate', ...where(f), detail: [...new Set(blocks.map((b) => b[1]))].join(', ') });
        continue;
      }
      // OpenSSL's TRUSTED CERTIFICATE (a certificate with trust settings) is left to the check below
      const bad = certs.filter((b) => b[1] === 'CERTIFICATE').map((b) => {
        try {
          new crypto.X509Certificate(b[0]);
          return null;
        } catch (e) {
          return words(e);
        }
      }).find((x) => x !== null);
      if (bad) {
        problems.push({ code: 'bad-certificate', ...where(f), detail: bad });
        continue;
      }
    }
    content[f] = buf;
  }
  if (problems.length > 0) return problems;
  if (content.cert && content.key) {
    try {
      const key = crypto.createPrivateKey({ key: content.key, format: 'pem', ...(files.passphrase ? { passphrase: files.passphrase } : {}) });
      if (!new crypto.X509Certificate(content.cert).checkPrivateKey(key)) {
        return [{ code: 'key-mismatch', ...where('key'), detail: files.cert!.file }];
      }
    } catch (e) {
      return [{ code: 'bad-key', ...where('key'), detail: words(e) }];
    }
  }
  try {
    tls.createSecureContext({ ca: content.ca, cert: content.cert, key: content.key, passphrase: files.passphrase });
  } catch (e) {
    return [{ code: 'refused', detail: words(e) }];
  }
  return [];
}

/**
 * A wrong passphrase is not always "bad decrypt": about one time in 300 the decryption's padding
 * comes out valid by chance and OpenSSL then fails to read the garbage as a key (its decoder says
 * "unsupported", as it does for a cipher it cannot use at all). Two other passphrases tell the
 * two apart: where the cipher is usable, they fail with "bad decrypt" (the key decrypts, to
 * garbage, with a wrong one), where it is not, with the same error as before.
 */
function decryptsToGarbage(pem: Buffer): boolean {
  for (const probe of ['\u0000kafka-mm2-probe-1', '\u0000kafka-mm2-probe-2']) {
    try {
      crypto.createPrivateKey({ key: pem, format: 'pem', passphrase: probe });
      return false; // opened by a passphrase nobody sets: not a question of the passphrase
    } catch (e) {
      if (/bad decrypt/i.test(words(e))) return true;
    }
  }
  return false;
}
