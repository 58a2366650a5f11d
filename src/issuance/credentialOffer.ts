// GET /oidc4vci/offers/:offer_id: the Credential Offer (OpenID4VCI section 4.1) the wallet
// resolves from `credential_offer_uri`. Read from the offer stream itself, not a projection: it is
// the write side that decides whether the offer is still open.
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import { offer, offerStream } from '../../streams/offer.js';
import { loadStream } from '../eventstore/handle.js';
import { issuerState, preAuthorizedCode } from './codes.js';
import { AUTHORIZATION_CODE_GRANT, PRE_AUTHORIZED_CODE_GRANT, type IssuanceContext } from './context.js';
import { OAuthError } from '../http/oauthError.js';

const OFFER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const credentialOfferEndpoint = (issuance: IssuanceContext) => async (http: Context): Promise<void> => {
  const offerId = http.params['offer_id'] ?? '';
  const gone = new OAuthError(404, 'not_found', 'No open credential offer with this id.');
  if (!OFFER_ID.test(offerId)) throw gone;
  const loaded = await loadStream(issuance.store, offer, offerStream(offerId));
  if (isLeft(loaded)) throw gone;
  const state = loaded.right.state;
  if (state.status !== 'OFFER_CREATED' || Date.parse(state.expiresAt) <= issuance.now().getTime()) throw gone;
  const { txCode } = state;
  http.set('Cache-Control', 'no-store');
  http.body = {
    credential_issuer: issuance.config.publicUrl,
    credential_configuration_ids: [state.credentialConfigurationId],
    grants: state.grant.grant === 'authorization_code' ? { [AUTHORIZATION_CODE_GRANT]: { issuer_state: issuerState(issuance.secrets, offerId) } } : {
      [PRE_AUTHORIZED_CODE_GRANT]: {
        'pre-authorized_code': preAuthorizedCode(issuance.secrets, offerId),
        ...(txCode === null
          ? {}
          : { tx_code: { input_mode: txCode.input_mode, length: txCode.length, ...(txCode.description === null ? {} : { description: txCode.description }) } }),
      },
    },
  };
};
