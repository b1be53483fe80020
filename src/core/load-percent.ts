/** How far an initial load (reading a topic up to the end it had at start) has come, in percent. */

/** The share of the records read, 0-100; 100 when there was nothing to read (the load is complete). */
export function readPercent(read: bigint, total: bigint): number {
  return total > 0n ? Number((read * 100n) / total) : 100;
}

/** The percentage a "loading" status shows: 0 when there is nothing to load, never 100 (that is "loaded"). */
export function loadPercent(done: bigint, total: bigint): number {
  const percent = total > 0n ? Number((done * 100n) / total) : 0;
  return percent > 99 ? 99 : percent;
}
