/**
 * One admin endpoint that takes a text (an MM2 config) in its body: the editor's "Paste MM2
 * config" and "Build flow from configs" buttons. A missing text is a 400, one above the limit (or
 * above a bound of the reader, PastedConfigLimitError) a 413, a failure of `answer` a 500; each
 * with `{error}`.
 */
import type { NodeAPI } from './red';
import { PastedConfigLimitError } from '../../core/pasted-configs';

/** Largest text accepted. */
export const MAX_TEXT_CHARS = 1024 * 1024;

export interface TextBody {
  text?: unknown;
  [field: string]: unknown;
}
interface HttpReq {
  body?: TextBody;
}
interface HttpRes {
  status(code: number): HttpRes;
  json(body: unknown): void;
}

export interface TextEndpoint {
  path: string;
  /** The permission asked of the editor user, e.g. `mm2-replication.write`. */
  permission: string;
  /** The errors' texts (translated when asked): no text in the body, a text above MAX_TEXT_CHARS. */
  noText(): string;
  tooLong(): string;
  /** A text whose `clusters` lists more aliases than the reader accepts (MAX_CLUSTER_ALIASES). */
  tooManyClusters(aliases: number, limit: number): string;
  /** Why the body's other fields cannot be answered (HTTP 400), naming the field; undefined when they can. */
  badRequest?(body: TextBody): string | undefined;
  /** The answer for a text within the limit (the body's other fields as sent). */
  answer(text: string, body: TextBody): unknown;
}

/** The body's `flow` field: a flow (tab) id, or undefined when absent or empty. */
export function flowOf(body: TextBody): string | undefined {
  return typeof body.flow === 'string' && body.flow !== '' ? body.flow : undefined;
}

/** Registers the POST endpoint `e.path` (see the file comment). */
export function registerTextEndpoint(RED: NodeAPI, e: TextEndpoint): void {
  RED.httpAdmin.post(e.path, RED.auth.needsPermission(e.permission), (req: HttpReq, res: HttpRes) => {
    try {
      const body = req.body ?? {};
      if (typeof body.text !== 'string') {
        res.status(400).json({ error: e.noText() });
        return;
      }
      if (body.text.length > MAX_TEXT_CHARS) {
        res.status(413).json({ error: e.tooLong() });
        return;
      }
      const bad = e.badRequest?.(body);
      if (bad !== undefined) {
        res.status(400).json({ error: bad });
        return;
      }
      res.json(e.answer(body.text, body));
    } catch (err) {
      if (err instanceof PastedConfigLimitError) {
        res.status(413).json({ error: e.tooManyClusters(err.count, err.limit) });
        return;
      }
      res.status(500).json({ error: (err as Error).message });
    }
  });
}
