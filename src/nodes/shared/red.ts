/**
 * The slice of Node-RED's runtime API our nodes use, typed locally (the published
 * @types/node-red are stale for 4.x/5.x). Kept minimal on purpose.
 */
export interface NodeStatus {
  fill?: 'red' | 'green' | 'yellow' | 'blue' | 'grey';
  shape?: 'ring' | 'dot';
  text?: string;
}

export interface NodeMessage {
  _msgid?: string;
  topic?: string;
  payload?: unknown;
  [key: string]: unknown;
}

export type SendFn = (msg: NodeMessage | null | Array<NodeMessage | NodeMessage[] | null>) => void;
export type DoneFn = (err?: Error) => void;

export interface Node {
  id: string;
  type: string;
  name?: string;
  z?: string;
  credentials: Record<string, string | undefined>;
  on(event: 'input', listener: (msg: NodeMessage, send: SendFn, done: DoneFn) => void): void;
  on(event: 'close', listener: (removed: boolean, done: () => void) => void): void;
  send(msg: NodeMessage | null | Array<NodeMessage | NodeMessage[] | null>): void;
  status(status: NodeStatus | Record<string, never>): void;
  log(msg: unknown): void;
  warn(msg: unknown): void;
  error(msg: unknown, m?: NodeMessage): void;
  debug(msg: unknown): void;
  trace(msg: unknown): void;
}

export interface NodeDef {
  id: string;
  type: string;
  name?: string;
  z?: string;
  [key: string]: unknown;
}

export interface ExpressLike {
  get(path: string, ...handlers: unknown[]): void;
  post(path: string, ...handlers: unknown[]): void;
}

export interface NodeAPI {
  nodes: {
    createNode(node: object, def: NodeDef): void;
    registerType(type: string, ctor: (this: Node, def: NodeDef) => void, opts?: { credentials?: Record<string, { type: 'text' | 'password' }>; settings?: Record<string, unknown> }): void;
    getNode(id: string): unknown;
    /** Every node definition of the deployed flows (config nodes included). */
    eachNode(cb: (def: NodeDef) => void): void;
  };
  httpAdmin: ExpressLike;
  /** The runtime's in-process event bus. */
  events: {
    on(event: string, listener: (...args: unknown[]) => void): void;
    removeListener(event: string, listener: (...args: unknown[]) => void): void;
    emit(event: string, ...args: unknown[]): boolean;
  };
  auth: { needsPermission(permission: string): unknown };
  settings: Record<string, unknown>;
  util: { evaluateNodeProperty(value: unknown, type: string, node: Node, msg: NodeMessage | undefined): unknown };
  _(key: string, subs?: Record<string, unknown>): string;
  version(): string;
}
