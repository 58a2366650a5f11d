// A callback URL: absolute http(s), no credentials (they would land in events and logs) and no
// fragment (never sent). Anything else is refused where it is configured, not at first delivery.
import * as t from 'io-ts';

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
