// When the attempts of a delivery happen: a list of delays, the first counted from the moment the
// delivery is recorded and each next one from the previous failed attempt. The receiver may ask
// for more time with `Retry-After`; it never gets less than the schedule gives.
import * as t from 'io-ts';
import { MAX_TIMER_MS } from '../http/codecs.js';

/** The default: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after each failure. */
export const DEFAULT_RETRY_SCHEDULE = '0,5s,5m,30m,2h,5h,10h,14h,20h,24h';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** `0`, `250ms`, `5s`, `5m`, `2h`: a delay in milliseconds, or undefined. */
export const parseDuration = (text: string): number | undefined => {
  const m = /^(\d{1,9})(ms|s|m|h)?$/.exec(text.trim());
  if (!m) return undefined;
  const value = Number(m[1]) * UNIT_MS[(m[2] ?? 's') as keyof typeof UNIT_MS];
  return value <= MAX_TIMER_MS ? value : undefined;
};

/** Delays in milliseconds, one per attempt; at least one. */
export type RetrySchedule = readonly number[];

export const RetryScheduleFromString = new t.Type<RetrySchedule, string, unknown>(
  'RetrySchedule',
  (u): u is RetrySchedule => Array.isArray(u) && u.length > 0 && u.every((n) => typeof n === 'number' && n >= 0),
  (u, c) => {
    const message = 'expected a comma-separated list of delays such as 0,5s,5m,2h (units ms, s, m, h; a bare number is seconds)';
    if (typeof u !== 'string') return t.failure(u, c, message);
    const delays = u.split(',').map(parseDuration);
    if (delays.length > 100 || delays.some((d) => d === undefined)) return t.failure(u, c, message);
    return t.success(delays as number[]);
  },
  (a) => a.map((ms) => `${ms}ms`).join(','),
);

/** Spreads retries of deliveries that failed together (a receiver outage) by up to ±10%. */
export const withJitter = (delayMs: number, random: () => number = Math.random): number =>
  Math.round(delayMs * (0.9 + 0.2 * random()));


/**
 * When the attempt after failed attempt number `attempt` is due, or null when none is left.
 * `limit` is the attempt count at which the delivery gives up (the schedule's length unless an
 * operator's re-send granted one more).
 */
export const nextAttemptAt = (
  schedule: RetrySchedule,
  attempt: number,
  limit: number | null,
  now: Date,
  retryAfterMs: number | undefined,
  random?: () => number,
): Date | null => {
  if (attempt >= (limit ?? schedule.length)) return null;
  const scheduled = withJitter(schedule[Math.min(attempt, schedule.length - 1)] ?? 0, random);
  return new Date(now.getTime() + Math.max(scheduled, retryAfterMs ?? 0));
};
