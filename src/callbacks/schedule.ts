// When the next attempt of a delivery happens: the configured schedule's delay (its syntax:
// src/config/callbacks.ts), spread a little. The receiver may ask for more time with
// `Retry-After`; it never gets less than the schedule gives.
import type { RetrySchedule } from '../config/callbacks.js';

/** Spreads retries of deliveries that failed together (a receiver outage) by up to ±10%. */
export const withJitter = (delayMs: number, random: () => number = Math.random): number =>
  Math.round(delayMs * (0.9 + 0.2 * random()));

/** The longest wait a `Retry-After` can impose: one day, the schedule's longest step. */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** `Retry-After` as delta-seconds or an HTTP date, in milliseconds from `now`; undefined if absent or malformed. */
export const parseRetryAfter = (value: string | null, now: Date): number | undefined => {
  if (value === null) return undefined;
  const text = value.trim();
  const ms = /^\d{1,10}$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now.getTime();
  return Number.isNaN(ms) ? undefined : Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
};

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
