// The Credential Offer (OpenID4VCI section 4.1) the wallet resolves from `credential_offer_uri`,
// as a use case apart from its HTTP edge (./credentialOfferRoute.ts). Read from the offer stream
// itself, not a projection: it is the write side that decides whether the offer is still open.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { madeAt, offer, offerStream } from '../../../streams/offer.js';
import { loadStream } from '../../eventstore/handle.js';
import { issuerState, preAuthorizedCode } from '../codes.js';
import { AUTHORIZATION_CODE_GRANT, PRE_AUTHORIZED_CODE_GRANT, type AtIssuer, type IssuanceContext } from '../context.js';

const OFFER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What the credential offer step uses of the issuance feature. */
export type CredentialOfferPorts = Pick<IssuanceContext, 'store' | 'secrets' | 'now'> & AtIssuer;

/** No open offer with this id at this issuer: unknown, another issuer's, ended or expired alike. */
export interface CredentialOfferNotFound {
  readonly _tag: 'CredentialOfferNotFound';
}

/** The Credential Offer object, as the wallet reads it. */
export interface CredentialOfferObject {
  readonly credential_issuer: string;
  readonly credential_configuration_ids: readonly string[];
  readonly grants: Readonly<Record<string, unknown>>;
}

export const credentialOffer = async (ports: CredentialOfferPorts, offerId: string): Promise<Either<CredentialOfferNotFound, CredentialOfferObject>> => {
  const gone = left({ _tag: 'CredentialOfferNotFound' } as const);
  if (!OFFER_ID.test(offerId)) return gone;
  const loaded = await loadStream(ports.store, offer, offerStream(offerId));
  if (isLeft(loaded)) return gone;
  const state = loaded.right.state;
  if (state.status !== 'OFFER_CREATED' || !madeAt(state, ports.issuer.recorded) || Date.parse(state.expiresAt) <= ports.now().getTime()) return gone;
  const { txCode } = state;
  return right({
    credential_issuer: ports.issuer.identifier,
    credential_configuration_ids: [state.credentialConfigurationId],
    grants:
      state.grant.grant === 'authorization_code'
        ? { [AUTHORIZATION_CODE_GRANT]: { issuer_state: issuerState(ports.secrets, offerId) } }
        : {
            [PRE_AUTHORIZED_CODE_GRANT]: {
              'pre-authorized_code': preAuthorizedCode(ports.secrets, offerId),
              ...(txCode === null
                ? {}
                : { tx_code: { input_mode: txCode.input_mode, length: txCode.length, ...(txCode.description === null ? {} : { description: txCode.description }) } }),
            },
          },
  });
};
