// The token endpoint (OpenID4VCI section 6, pre-authorized code grant; RFC 9449 for DPoP; the
// authorization_code grant is src/issuance/authorizationCodeGrant.ts). The
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
import { newOfferSecret, offerOfPreAuthorizedCode, txCodeHash } from './codes.js';
import { authorizationCodeGrant } from './authorizationCodeGrant.js';
import { AUTHORIZATION_CODE_GRANT, PRE_AUTHORIZED_CODE_GRANT, type IssuanceContext } from './context.js';
import { checkAttestedWallet, CLIENT_ATTESTATION_HEADER } from './walletAttestation.js';
import { FORM_LIMIT, single } from './form.js';
import { invalidGrant, invalidRequest, OAuthError } from '../http/oauthError.js';
import { purgeClaims } from './offerEnd.js';
import { answerToken, tokenRequestDpopProof } from './tokenAnswer.js';

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
    default:
      return invalidGrant('The pre-authorized code is unknown.');
  }
};

export const tokenEndpoint = (issuance: IssuanceContext) => async (http: Context): Promise<void> => {
  const fields = await readForm(http, { limitBytes: FORM_LIMIT });
  const grantType = single(fields, 'grant_type');
  if (grantType === undefined) throw invalidRequest('grant_type is required.');
  if (grantType === AUTHORIZATION_CODE_GRANT) return authorizationCodeGrant(issuance, http, fields);
  if (grantType !== PRE_AUTHORIZED_CODE_GRANT) {
    throw new OAuthError(400, 'unsupported_grant_type', `Only ${PRE_AUTHORIZED_CODE_GRANT} and ${AUTHORIZATION_CODE_GRANT} are supported.`);
  }
  const code = single(fields, 'pre-authorized_code');
  if (code === undefined) throw invalidRequest('pre-authorized_code is required.');
  const txCode = single(fields, 'tx_code');

  const now = issuance.now();
  // Wallets of the pre-authorized flow authenticate when WALLET_ATTESTATION says so, or when they choose to.
  // Its PoP is spent after the DPoP proof is checked, as in the authorization code grant.
  const attested = issuance.config.walletAttestation === 'required' || http.headers[CLIENT_ATTESTATION_HEADER] !== undefined;
  const attestation = attested ? await checkAttestedWallet(issuance, http.headers, single(fields, 'client_id'), now) : undefined;
  const dpop = await tokenRequestDpopProof(issuance, http, now);
  await attestation?.spend();

  const offerId = offerOfPreAuthorizedCode(issuance.secrets, code);
  if (offerId === undefined) throw invalidGrant('The pre-authorized code is unknown.');
  const access = newOfferSecret(offerId);
  const metadata = { actor: 'wallet', requestId: requestIdOf(http) };
  const redeem: Command = {
    type: 'RedeemPreAuthorizedCode',
    data: {
      offerId,
      txCodeHash: txCode === undefined ? undefined : txCodeHash(issuance.secrets, offerId, txCode),
      accessTokenHash: access.hash,
      dpopJkt: dpop.jkt,
      wallet: attestation?.wallet,
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
  issuance.log.info('pre-authorized code redeemed', { offerRef: logRef(offerId), ...(redeemed.data.wallet ? { walletProvider: redeemed.data.wallet.walletProvider } : {}) });
  answerToken(http, issuance.secrets, now, { accessToken: access.token, expiresAt: redeemed.data.expiresAt });
};
