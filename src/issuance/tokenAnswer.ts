// The token endpoint's answer, whichever grant (RFC 6749 section 5.1, RFC 9449 sections 5 and 8):
// never cached, a DPoP-bound access token that lasts as long as its offer, and the DPoP nonce the
// wallet's next proof carries.
import type { Context } from 'koa';
import { currentDpopNonce } from './dpopNonce.js';
import type { IssuanceSecrets } from './secrets.js';

export const answerToken = (
  http: Context,
  secrets: Pick<IssuanceSecrets, 'mac'>,
  now: Date,
  token: { readonly accessToken: string; readonly expiresAt: string },
  extra: Readonly<Record<string, unknown>> = {},
): void => {
  http.set('Cache-Control', 'no-store');
  http.set('Pragma', 'no-cache');
  http.set('DPoP-Nonce', currentDpopNonce(secrets, now));
  http.body = {
    access_token: token.accessToken,
    token_type: 'DPoP',
    expires_in: Math.max(1, Math.floor((Date.parse(token.expiresAt) - now.getTime()) / 1000)),
    ...extra,
  };
};
