// The callback settings (CALLBACK_URL, CALLBACK_SECRET, CALLBACK_RETRY_SCHEDULE): what each may
// hold. The callbacks feature signs and schedules with the values; the rules live here, below it,
// because the configuration checks them at start.
import { randomBytes } from 'node:crypto';
import * as t from 'io-ts';
import { MAX_TIMER_MS, withMessage } from '../http/codecs.js';

// A callback URL: absolute http(s), no credentials (they would land in events and logs) and no
// fragment (never sent). Anything else is refused where it is configured, not at first delivery.
export const isCallbackUrl = (raw: string): boolean => {
  if (raw !== raw.trim() || raw.includes('#')) return false;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
};

export const CallbackUrl = new t.Type<string, string, unknown>(
  'CallbackUrl',
  (u): u is string => typeof u === 'string' && isCallbackUrl(u),
  (u, c) =>
    typeof u === 'string' && isCallbackUrl(u)
      ? t.success(u)
      : t.failure(u, c, 'expected an absolute http(s) URL without credentials or fragment'),
  (a) => a,
);

// A Standard Webhooks secret: `whsec_<base64>`, the bytes of which key the signature.
const PREFIX = 'whsec_';
const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

/** The HMAC key a secret stands for. */
export const webhookSecretKey = (secret: string): Buffer => Buffer.from(secret.slice(PREFIX.length), 'base64');

// Standard Webhooks asks for 24 to 64 bytes of key.
export const isWebhookSecret = (s: string): boolean =>
  SECRET.test(s) && webhookSecretKey(s).length >= 24 && webhookSecretKey(s).length <= 64;

export const WebhookSecret = withMessage(
  t.refinement(t.string, isWebhookSecret, 'WebhookSecret'),
  'expected whsec_ followed by 24 to 64 bytes in base64',
);

/** A fresh secret of this format, for a tenant given a callback URL without one. */
export const generateWebhookSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`;

// When the attempts of a delivery happen: a list of delays, the first counted from the moment the
// delivery is recorded and each next one from the previous failed attempt.

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
