// The token endpoint (OpenID4VCI section 6, pre-authorized code grant; RFC 9449 for DPoP). The
// DPoP proof is checked first, so a bad proof changes nothing about the offer. The decision on
// the code is taken on the offer stream and appended at the revision read: a code is redeemed
// once, a wrong transaction code is counted, and the last allowed wrong one fails the offer.
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { offer, offerStream, type Command, type DomainError } from '../../streams/offer.js';
import { handleCommand } from '../eventstore/handle.js';
import { readForm } from '../http/body.js';
import { requestIdOf } from '../log.js';
import { logRef } from '../../streams/kernel.js';
import { newAccessToken, offerOfPreAuthorizedCode, txCodeHash } from './codes.js';
import { endpointUrl, PATHS, PRE_AUTHORIZED_CODE_GRANT, type IssuanceContext } from './context.js';
import { verifyDpopProof } from './dpop.js';
import { OAuthError } from './oauthError.js';
import { purgeClaims } from './offerEnd.js';

const FORM_LIMIT = 16 * 1024;

const invalidGrant = (description: string) => new OAuthError(400, 'invalid_grant', description);
const invalidRequest = (description: string) => new OAuthError(400, 'invalid_request', description);

/** A form field given once, or undefined; repeated fields are refused (RFC 6749 section 3.2). */
const single = (fields: Readonly<Record<string, string | readonly string[]>>, name: string): string | undefined => {
  const value = fields[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw invalidRequest(`${name} must appear once.`);
  return value;
};

/** The wallet's answer for each refusal of a token request. */
const refusal = (error: DomainError): OAuthError => {
  switch (error._tag) {
    case 'OfferNotFound':
    case 'OfferExists':
    case 'AccessTokenUnknown':
      return invalidGrant('The pre-authorized code is unknown.');
    case 'OfferEnded':
      return invalidGrant('The offer has ended; ask for a new one.');
    case 'OfferHasExpired':
      return invalidGrant('The pre-authorized code has expired.');
    case 'PreAuthorizedCodeUsed':
      return invalidGrant('The pre-authorized code was already used.');
    case 'TxCodeNotExpected':
      return invalidRequest('This offer has no transaction code; do not send tx_code.');
    case 'TxCodeRequired':
      return invalidRequest('This offer requires tx_code.');
  }
};

export const tokenEndpoint = (issuance: IssuanceContext) => async (http: Context): Promise<void> => {
  const fields = await readForm(http, { limitBytes: FORM_LIMIT });
  const grantType = single(fields, 'grant_type');
  if (grantType === undefined) throw invalidRequest('grant_type is required.');
  if (grantType !== PRE_AUTHORIZED_CODE_GRANT) {
    throw new OAuthError(400, 'unsupported_grant_type', `Only ${PRE_AUTHORIZED_CODE_GRANT} is supported.`);
  }
  const code = single(fields, 'pre-authorized_code');
  if (code === undefined) throw invalidRequest('pre-authorized_code is required.');
  const txCode = single(fields, 'tx_code');

  const now = issuance.now();
  const dpop = await verifyDpopProof(issuance.store, {
    proof: http.headers['dpop'],
    htm: 'POST',
    htu: endpointUrl(issuance.config.publicUrl, PATHS.token),
    now,
    maxAgeSeconds: issuance.config.proofMaxAgeSeconds,
  });
  // Bearer tokens are not issued: a request without a proof is malformed, one with a bad proof is refused.
  if (!dpop.ok) throw dpop.missing ? invalidRequest(dpop.reason) : new OAuthError(400, 'invalid_dpop_proof', dpop.reason);

  const offerId = offerOfPreAuthorizedCode(issuance.secrets, code);
  if (offerId === undefined) throw invalidGrant('The pre-authorized code is unknown.');
  const access = newAccessToken(offerId);
  const metadata = { actor: 'wallet', requestId: requestIdOf(http) };
  const redeem: Command = {
    type: 'RedeemPreAuthorizedCode',
    data: {
      offerId,
      txCodeHash: txCode === undefined ? undefined : txCodeHash(issuance.secrets, offerId, txCode),
      accessTokenHash: access.hash,
      dpopJkt: dpop.jkt,
      maxTxCodeAttempts: issuance.config.txCodeMaxAttempts,
      at: now.toISOString(),
    },
  };
  const result = await handleCommand(issuance.store, offer, offerStream(offerId), redeem, { commandId: randomUUID(), metadata });
  if (isLeft(result)) {
    if ('offerId' in result.left) throw refusal(result.left);
    throw invalidGrant('The pre-authorized code was used concurrently; it can be redeemed once.');
  }
  const events = result.right.events;
  if (events.some((e) => e.type === 'OfferFailed')) {
    await purgeClaims(issuance, offerId, metadata);
    issuance.log.info('offer failed', { offerRef: logRef(offerId), reason: 'tx_code attempts exhausted' });
  }
  if (events[0]?.type === 'TxCodeRejected') throw invalidGrant('The transaction code is wrong.');

  const redeemed = events[0];
  if (redeemed?.type !== 'PreAuthorizedCodeRedeemed') throw new Error('token decision recorded neither a redemption nor a rejection');
  issuance.log.info('pre-authorized code redeemed', { offerRef: logRef(offerId) });
  http.set('Cache-Control', 'no-store');
  http.set('Pragma', 'no-cache');
  http.body = {
    access_token: access.token,
    token_type: 'DPoP',
    expires_in: Math.max(1, Math.floor((Date.parse(redeemed.data.expiresAt) - now.getTime()) / 1000)),
  };
};

