/**
 * "5 s ago" in a node status: the one place that turns an age into words. Each node keeps the
 * scale its status has always shown (its texts are part of what users and tests read).
 */
import type { Translate } from './i18n';

export interface AgoScale {
  /** Message keys; each gets `n`. */
  seconds: string;
  minutes: string;
  /** Without it, minutes have no upper bound. */
  hours?: string;
  /** Ages below this many seconds are shown in seconds. */
  secondsBelow: number;
  /** How whole minutes and hours are taken. */
  rounding: 'floor' | 'round';
}

export function ago(t: Translate, ms: number, scale: AgoScale): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const whole = scale.rounding === 'floor' ? Math.floor : Math.round;
  if (s < scale.secondsBelow) return t(scale.seconds, { n: s });
  if (!scale.hours || s < 3600) return t(scale.minutes, { n: whole(s / 60) });
  return t(scale.hours, { n: whole(s / 3600) });
}
