/**
 * The one way our flow nodes take input and refuse it, as Node-RED asks: every message ends in
 * `done()` or `done(err)` (so Catch and Complete nodes see it), and a node whose settings were
 * refused says so in its status, its log and to every message it gets.
 */
import type { DoneFn, Node, NodeMessage, SendFn } from './red';
import type { StatusReporter } from './flow-node';

export type InputHandler = (msg: NodeMessage, send: SendFn, done: DoneFn) => void | Promise<void>;

export interface InputOptions {
  /** Called with the error of a message that failed, before done(err): e.g. to show it in the status. */
  failed?: (err: Error) => void;
}

/**
 * Registers `handler` for input. It calls `done` itself (at once or when its work ends); an error
 * it throws, or a promise it returns that rejects, ends the message with done(err). A message
 * is ended once.
 */
export function onInput(node: Node, handler: InputHandler, options: InputOptions = {}): void {
  node.on('input', (msg: NodeMessage, send: SendFn, done: DoneFn) => {
    let ended = false;
    const end: DoneFn = (err?: Error) => {
      if (ended) return;
      ended = true;
      if (err) options.failed?.(err);
      if (err) done(err);
      else done();
    };
    const fail = (e: unknown): void => end(e instanceof Error ? e : new Error(String(e)));
    try {
      const r = handler(msg, send, end);
      if (r && typeof (r as Promise<void>).then === 'function') (r as Promise<void>).catch(fail);
    } catch (e) {
      fail(e);
    }
  });
}

/**
 * The node refused its settings: red status (`statusText`, or `text`), `logText` (or `text`)
 * logged as an error, and, with `refuseInput`, every message ends with done(error) (the text
 * logged, or the one given).
 */
export function refuseSettings(
  node: Node,
  status: StatusReporter | null,
  text: string,
  options: { statusText?: string; logText?: string; refuseInput?: boolean | string } = {},
): void {
  const logText = options.logText ?? text;
  status?.fail(options.statusText ?? text);
  node.error(logText);
  if (options.refuseInput) refuseInput(node, typeof options.refuseInput === 'string' ? options.refuseInput : logText);
}

/** Every message ends with done(error `text`): the node cannot do what it is asked. */
export function refuseInput(node: Node, text: string): void {
  node.on('input', (_msg: NodeMessage, _send: SendFn, done: DoneFn) => done(new Error(text)));
}
