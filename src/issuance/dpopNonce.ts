// Server-provided DPoP nonces (RFC 9449 sections 8 and 9; HAIP 1.0 section 4 asks for them). A
// nonce is `<window>.<MAC(window)>`, where the window is the current DPOP_NONCE_ROTATION_SECONDS
// slice of time: any instance can make and check one and nothing is recorded. The current and
// the previous window's nonce are accepted, so a nonce handed out just before a rotation still
// works for one more window; older ones get `use_dpop_nonce` with the current one. Replay is
// still stopped by the single-use `jti`; the nonce bounds how far ahead a proof can be made.
import type { IssuanceSecrets } from './secrets.js';

export const DPOP_NONCE_ROTATION_SECONDS = 60;

const windowOf = (now: Date): number => Math.floor(now.getTime() / 1000 / DPOP_NONCE_ROTATION_SECONDS);

const nonceOf = (secrets: Pick<IssuanceSecrets, 'mac'>, window: number): string => `${window}.${secrets.mac('dpop_nonce', String(window))}`;

/** The nonce to send in `DPoP-Nonce` now. */
export const currentDpopNonce = (secrets: Pick<IssuanceSecrets, 'mac'>, now: Date): string => nonceOf(secrets, windowOf(now));

/** Whether a proof's `nonce` claim is the current or the previous window's nonce. */
export const isFreshDpopNonce = (secrets: Pick<IssuanceSecrets, 'verify'>, nonce: unknown, now: Date): boolean => {
  if (typeof nonce !== 'string') return false;
  const match = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(nonce);
  if (!match) return false;
  const window = Number(match[1]);
  const current = windowOf(now);
  return (window === current || window === current - 1) && secrets.verify('dpop_nonce', String(window), match[2]!);
};
