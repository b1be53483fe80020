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

/** The "loading" percentage (one helper, in core/load-percent). */
export { loadPercent } from '../../core/load-percent';
