/**
 * The admin endpoint behind the mm2-replication dialog's "Build flow from configs" button:
 *
 *   POST /mm2/flow/build   body {text, flow?}   (needs mm2-replication.write)
 *
 * answers what flows/build-flow's buildFlowFromText gives for the text.
 */
import type { NodeAPI } from '../shared/red';
import type { Translate } from '../shared/i18n';
import { nodeEnvLookup } from '../shared/settings';
import { flowOf, registerTextEndpoint } from '../shared/text-endpoint';
import { buildFlowFromText } from '../../flows/build-flow';

/** Registers POST /mm2/flow/build (see the file comment). */
export function registerBuildFlowEndpoint(RED: NodeAPI, translate: Translate): void {
  registerTextEndpoint(RED, {
    path: '/mm2/flow/build',
    permission: 'mm2-replication.write',
    noText: () => translate('mm2-replication.build.no-text'),
    tooLong: () => translate('mm2-replication.build.too-long'),
    tooManyClusters: (aliases, limit) => translate('mm2-replication.build.too-many-clusters', { aliases, limit }),
    answer: (text, body) => buildFlowFromText(text, { flow: flowOf(body), lookup: nodeEnvLookup(RED, undefined) }),
  });
}
