/**
 * The one table of the numeric fields of every node's dialog and the values the runtime accepts
 * for them, built from the runtime's own bounds (core/intervals, the MM2 catalogue's int/short/long
 * ranges, the group-offsets write floor, the cluster timeouts). The runtime readers check these
 * bounds (and say so in their own words); the build lays this table and `numberFieldProblem` into
 * every editor file, so the dialog refuses what the runtime would refuse, as you type.
 */
import { INT_MAX, SHORT_MAX } from './config-properties';
import { MAX_INTERVAL_MS, MAX_INTERVAL_SECONDS, MIN_INTERVAL_MS, MIN_INTERVAL_SECONDS } from './intervals';

export interface NumberBounds {
  min: number;
  max: number;
  /** Only whole numbers. */
  integer: boolean;
  /** Values accepted besides min..max (-1: the broker's default replication factor; 0: off). */
  also?: readonly number[];
  /** An empty field is refused (otherwise it takes the default). */
  required?: boolean;
}

const seconds = (integer: boolean): NumberBounds => ({ min: MIN_INTERVAL_SECONDS, max: MAX_INTERVAL_SECONDS, integer });

/** Bounds of the group-offsets node's least time between two writes of one group: 0 (no floor) to one minute. */
export const MIN_WRITE_INTERVAL_BOUNDS_MS = Object.freeze({ min: 0, max: 60000 });

/** kafkajs's connectionTimeout (ms): today's 5000 by default; 100 ms to 5 minutes. */
export const CONNECTION_TIMEOUT_BOUNDS_MS = Object.freeze({ min: 100, max: 300000, dflt: 5000 });
/** kafkajs's requestTimeout (ms): today's 30000 by default; 1 s to 10 minutes. */
export const REQUEST_TIMEOUT_BOUNDS_MS = Object.freeze({ min: 1000, max: 600000, dflt: 30000 });

/** Node type -> field -> bounds: every numeric field of every dialog. */
export const FIELD_BOUNDS: Readonly<Record<string, Readonly<Record<string, NumberBounds>>>> = Object.freeze({
  'mm2-cluster': {
    connectionTimeoutMs: { min: CONNECTION_TIMEOUT_BOUNDS_MS.min, max: CONNECTION_TIMEOUT_BOUNDS_MS.max, integer: true },
    requestTimeoutMs: { min: REQUEST_TIMEOUT_BOUNDS_MS.min, max: REQUEST_TIMEOUT_BOUNDS_MS.max, integer: true },
  },
  'mm2-replication': {
    // checkpoints/offset-syncs/heartbeats.topic.replication.factor: a short, at least 1, or -1
    replicationFactor: { min: 1, max: SHORT_MAX, integer: true, also: [-1], required: true },
  },
  'mm2-mirror': {
    replicationFactor: { min: 1, max: INT_MAX, integer: true, also: [-1] },
    offsetLagMax: { min: 0, max: Number.MAX_SAFE_INTEGER, integer: true },
    offsetFlushIntervalMs: { min: MIN_INTERVAL_MS, max: MAX_INTERVAL_MS, integer: true },
    refreshTopicsIntervalSeconds: seconds(true),
    syncTopicConfigsIntervalSeconds: seconds(true),
    syncTopicAclsIntervalSeconds: seconds(true),
  },
  'mm2-checkpoint': {
    emitCheckpointsIntervalSeconds: seconds(true),
    refreshGroupsIntervalSeconds: seconds(true),
    // readiness: at risk above this many records re-read by a failover, or this old (core/readiness)
    readyMaxReread: { min: 0, max: Number.MAX_SAFE_INTEGER, integer: true },
    readyMaxAgeSeconds: seconds(true),
  },
  'mm2-group-offsets': {
    syncGroupOffsetsIntervalSeconds: seconds(false),
    minWriteIntervalMs: { min: MIN_WRITE_INTERVAL_BOUNDS_MS.min, max: MIN_WRITE_INTERVAL_BOUNDS_MS.max, integer: true },
  },
  'mm2-failback': {
    syncGroupOffsetsIntervalSeconds: seconds(true),
  },
  'mm2-heartbeat': {
    emitHeartbeatsIntervalSeconds: seconds(true),
    staleAfterSeconds: seconds(false),
  },
  'mm2-connect': {
    tasksMax: { min: 1, max: INT_MAX, integer: true },
    pollSeconds: { ...seconds(false), also: [0] },
  },
});

/**
 * Why a field's raw value is refused by `b`, or undefined when accepted: 'required' (empty but
 * needed), 'number' (not a plain decimal number), 'integer' (not whole), 'range'. An empty field
 * (the default) and a field holding `${VAR}` (resolved at runtime) are accepted. Self-contained
 * (the build copies its source into the editor): no reference outside its body.
 */
export function numberFieldProblem(b: NumberBounds, raw: unknown): 'required' | 'number' | 'integer' | 'range' | undefined {
  const s = raw === undefined || raw === null ? '' : String(raw).trim();
  if (s === '') return b.required ? 'required' : undefined;
  if (/\$\{[^}]+\}/.test(s)) return undefined;
  if (!/^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/.test(s)) return 'number';
  const n = Number(s);
  if (b.also && b.also.indexOf(n) >= 0) return undefined;
  if (b.integer && Math.floor(n) !== n) return 'integer';
  if (n < b.min || n > b.max) return 'range';
  return undefined;
}
