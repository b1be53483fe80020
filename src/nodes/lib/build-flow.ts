/**
 * The admin endpoint behind the mm2-replication dialog's "Build flow from configs" button:
 *
 *   POST /mm2/flow/build   body {text, flow?}   (needs mm2-replication.write)
 *
 * answers what flows/build-flow's buildFlowFromText gives for the text.
 */
import type { NodeAPI } from './red';
import { nodeEnvLookup } from './settings';
import { buildFlowFromText } from '../../flows/build-flow';

/** Largest text accepted (the paste endpoint's limit too). */
const MAX_TEXT_CHARS = 1024 * 1024;

interface HttpReq {
  body?: { text?: unknown; flow?: unknown };
}
interface HttpRes {
  status(code: number): HttpRes;
  json(body: unknown): void;
}

/** Registers POST /mm2/flow/build (see the file comment). */
export function registerBuildFlowEndpoint(RED: NodeAPI, translate: (key: string) => string): void {
  RED.httpAdmin.post('/mm2/flow/build', RED.auth.needsPermission('mm2-replication.write'), (req: HttpReq, res: HttpRes) => {
    try {
      const body = req.body ?? {};
      if (typeof body.text !== 'string') {
        res.status(400).json({ error: translate('mm2-replication.build.no-text') });
        return;
      }
      if (body.text.length > MAX_TEXT_CHARS) {
        res.status(413).json({ error: translate('mm2-replication.build.too-long') });
        return;
      }
      const flow = typeof body.flow === 'string' && body.flow !== '' ? body.flow : undefined;
      res.json(buildFlowFromText(body.text, { flow, lookup: nodeEnvLookup(RED, undefined) }));
    } catch (e) {
      res.status(500).json({ error: (e as Error).message });
    }
  });
}
