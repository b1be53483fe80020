/**
 * The one key of a topic partition in the maps of this package: `partition:topic`. Each key is
 * made once per partition and shared (interned): at 10,000 groups × 10 partitions the per-group
 * maps of the source offsets, the checkpoint store and the group-offset writer would otherwise
 * hold 100,000 copies each of the same ten strings.
 */
const interned = new Map<string, Map<number, string>>();
/** Distinct partitions kept; beyond this (absurd input) the table starts again rather than grow. */
const MAX_INTERNED = 1_000_000;
let count = 0;

export function partitionKey(topic: string, partition: number): string {
  let byPartition = interned.get(topic);
  if (byPartition === undefined) {
    byPartition = new Map();
    interned.set(topic, byPartition);
  }
  let k = byPartition.get(partition);
  if (k === undefined) {
    if (count >= MAX_INTERNED) {
      interned.clear();
      count = 0;
      byPartition = new Map();
      interned.set(topic, byPartition);
    }
    k = [partition, topic].join(':'); // one flat string (a template literal may build a rope)
    byPartition.set(partition, k);
    count++;
  }
  return k;
}

const names = new Map<string, string>();

/**
 * One shared instance of a topic name made again and again (a remote topic name built for every
 * group partition of every cycle), flattened: equal strings made by concatenation are distinct
 * ropes in memory. Bounded like the keys.
 */
export function internName(name: string): string {
  const have = names.get(name);
  if (have !== undefined) return have;
  if (names.size >= MAX_INTERNED) names.clear();
  const flat = flatten(name);
  names.set(flat, flat);
  return flat;
}

/** The same string, its rope (if concatenation built one) flattened in place, so that its parts can go. */
export function flatten(s: string): string {
  // ToNumber reads the string flat, and V8 keeps the flat form: the usual trick (as pino's flatstr)
  void Number(s);
  return s;
}
