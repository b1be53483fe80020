/**
 * The check of the tls-config node an mm2-cluster node refers to, in the runtime's words
 * (mm2-common.tls.*): one reader for the cluster node (which refuses to connect) and for the
 * Connect export and the mm2-connect deploy (which refuse to hand MM2 such a config). It reads
 * the node's definition (its file paths, else its uploaded certificates from its credentials)
 * through kafka/tls-files, so both say the same about the same node and file.
 */
import type { Translate } from './i18n';
import { tlsFileProblems, tlsNodeFiles, type TlsFileField, type TlsFileProblem } from '../../kafka/tls-files';

/** `'orders CA' (1a2b)` (its name and id) or `'1a2b'`: how a message names a TLS configuration node. */
export function tlsLabel(id: string, name: unknown): string {
  return typeof name === 'string' && name.trim() !== '' ? `'${name.trim()}' (${id})` : `'${id}'`;
}

/** One problem of a TLS configuration, in the runtime's words; `field` is the file it concerns, if one. */
export interface TlsCheckProblem {
  field?: TlsFileField;
  text: string;
}

function fileText(t: Translate, label: string, p: TlsFileProblem): string {
  const what = p.field
    ? t(p.uploaded ? 'mm2-common.tls.uploaded' : 'mm2-common.tls.file', { kind: t(`mm2-common.tls.kind.${p.field}`), file: p.file || '?' })
    : '';
  return t(`mm2-common.tls.problem.${p.code}`, { tls: label, what, detail: p.detail ?? '', kind: p.field ? t(`mm2-common.tls.kind.${p.field}`) : '' });
}

/**
 * Why the TLS configuration `id` (its definition, undefined when no such node; its stored
 * credentials) cannot be used, or [] when its files are fine: a node that does not exist or is
 * disabled, another type of node, a file missing, unreadable, empty or not PEM, a certificate
 * without its key, a key that is not the certificate's. `read` reads a path (tests).
 */
export function tlsConfigProblems(
  t: Translate,
  id: string,
  definition: Readonly<Record<string, unknown>> | undefined,
  credentials: Readonly<Record<string, unknown>> | undefined,
  read?: (p: string) => Buffer,
): TlsCheckProblem[] {
  const label = tlsLabel(id, definition?.name);
  if (!definition) return [{ text: t('mm2-common.tls.no-node', { tls: label }) }];
  if (definition.d === true || definition.d === 'true') return [{ text: t('mm2-common.tls.disabled', { tls: label }) }];
  if (definition.type !== undefined && definition.type !== 'tls-config') {
    return [{ text: t('mm2-common.tls.not-tls', { tls: label, type: String(definition.type) }) }];
  }
  return tlsFileProblems(tlsNodeFiles(definition, credentials), read).map((p) => ({ ...(p.field ? { field: p.field } : {}), text: fileText(t, label, p) }));
}
