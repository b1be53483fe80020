/**
 * The admin endpoint behind the editors' "Paste MM2 config" button (see src/nodes/mm2-checkpoint/mm2-checkpoint.html):
 *
 *   POST /mm2/config/parse   body {text, type?, current?, flow?}   (needs mm2-checkpoint.write)
 *
 * answers what parseConfigForNode gives for the text, for the node type `type` (mm2-checkpoint
 * when absent; a type without MM2 settings is a 400 naming the field), over the dialog's
 * `current` replication fields.
 */
import type { NodeAPI } from './red';
import type { Translate } from './i18n';
import { NODE_SETTINGS, nodeEnvLookup, parseConfigForNode, type ReplicationFields } from './settings';
import { flowOf, registerTextEndpoint } from './text-endpoint';

const TYPE = 'mm2-checkpoint';

/** The replication fields of the dialog as sent; anything else (or of another type) left out. */
function pickCurrent(v: unknown): ReplicationFields | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const c = v as Record<string, unknown>;
  const out: ReplicationFields = {};
  for (const k of ['sourceAlias', 'targetAlias', 'policy', 'separator', 'offsetSyncsLocation'] as const) {
    if (typeof c[k] === 'string') out[k] = c[k] as string;
  }
  if (typeof c.internalSeparator === 'boolean') out.internalSeparator = c.internalSeparator;
  const rf = Number(c.replicationFactor);
  if (c.replicationFactor !== undefined && c.replicationFactor !== '' && Number.isInteger(rf)) out.replicationFactor = rf;
  return out;
}

/** Registers POST /mm2/config/parse (see the file comment); `t` translates mm2-checkpoint's texts. */
export function registerPasteEndpoint(RED: NodeAPI, t: Translate): void {
  registerTextEndpoint(RED, {
    path: '/mm2/config/parse',
    permission: `${TYPE}.write`,
    noText: () => t('mm2-checkpoint.paste.no-text'),
    tooLong: () => t('mm2-checkpoint.paste.too-long'),
    tooManyClusters: (aliases, limit) => t('mm2-checkpoint.paste.too-many-clusters', { aliases, limit }),
    badRequest: (body) => {
      if (body.type === undefined || (typeof body.type === 'string' && Object.prototype.hasOwnProperty.call(NODE_SETTINGS, body.type))) return undefined;
      const given = JSON.stringify(body.type) ?? String(body.type);
      return t('mm2-checkpoint.paste.bad-type', { type: given.length > 60 ? `${given.slice(0, 60)}…` : given, types: Object.keys(NODE_SETTINGS).join(', ') });
    },
    answer: (text, body) => {
      const type = typeof body.type === 'string' ? body.type : TYPE;
      return parseConfigForNode(text, type, pickCurrent(body.current), { flow: flowOf(body), lookup: nodeEnvLookup(RED, undefined) });
    },
  });
}
