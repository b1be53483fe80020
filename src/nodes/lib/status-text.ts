/** Small pure helpers for the short texts a node status shows. */

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** HH:MM:SS for today, MM-DD HH:MM otherwise (local time). */
export function shortTime(ms: number, now = Date.now()): string {
  const d = new Date(ms);
  const today = new Date(now);
  const hms = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  if (d.toDateString() === today.toDateString()) return hms;
  return `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Percentage of an initial load, 0 when there is nothing to load, never 100 (that is "loaded"). */
export function loadPercent(done: bigint, total: bigint): number {
  const percent = total > 0n ? Number((done * 100n) / total) : 0;
  return percent > 99 ? 99 : percent;
}
