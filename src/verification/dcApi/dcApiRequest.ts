// What the integrator's page passes to the browser's `navigator.credentials.get({digital: {requests}})`
// for a DC API session (W3C Digital Credentials API; OpenID4VP 1.0 Appendix A): one request per
// exchange protocol the session is offered in, each built by that protocol's entry in
// `dcApiRequestBuilders` from the request recorded at creation.
//
// Both OpenID4VP forms ask for `response_mode: "dc_api.jwt"` (HAIP: the answer is encrypted to
// the request's key in `client_metadata`) and carry no `response_uri`, `state` or `redirect_uri`:
// the browser returns the answer to the page, which names its origin. The signed form (A.3.2,
// JWS Compact Serialization) is a request object like the request URI's (x509_hash client id,
// `x5c`) with `expected_origins`; the unsigned form (A.3.1) carries the parameters themselves,
// without `client_id` or `expected_origins`, which a wallet ignores there. ISO/IEC TS 18013-7
// Annex C (`org-iso-mdoc`) carries a DeviceRequest and an EncryptionInfo instead.
import type { JWK } from 'jose';
import type { DcApiProtocol } from '../../../streams/presentation.js';
import { annexCRequestData } from './annexCRequest.js';
import type { DcqlQuery } from '../dcql.js';
import { clientMetadata, signRequestParameters, type Verifier } from '../authorizationRequest.js';

/** One entry of the Digital Credentials API's `requests`: `{protocol, data}`. */
export interface DcApiRequest {
  readonly protocol: DcApiProtocol;
  readonly data: Readonly<Record<string, unknown>>;
}

/** The recorded request a DC API request is built from. */
export interface DcApiRequestContent {
  readonly kid: string;
  readonly nonce: string;
  readonly publicJwk: JWK;
  /** Offered in `org-iso-mdoc`: the public half of its HPKE recipient key. */
  readonly annexCRecipientKey?: JWK;
  readonly dcqlQuery: DcqlQuery;
  /** Each item base64url JSON, as recorded. */
  readonly transactionData: readonly string[];
  readonly expectedOrigins: readonly string[];
  readonly expiresAt: Date;
  readonly now: Date;
}

/** The Authorization Request parameters both OpenID4VP forms carry (A.2). */
const parameters = (content: DcApiRequestContent) => ({
  response_type: 'vp_token',
  response_mode: 'dc_api.jwt',
  nonce: content.nonce,
  dcql_query: content.dcqlQuery,
  ...(content.transactionData.length > 0 ? { transaction_data: content.transactionData } : {}),
  client_metadata: clientMetadata(content.kid, content.publicJwk),
});

type Builder = (verifier: Verifier, content: DcApiRequestContent) => Promise<DcApiRequest>;

/** One builder per exchange protocol the connector offers. */
export const dcApiRequestBuilders: Readonly<Record<DcApiProtocol, Builder>> = {
  'openid4vp-v1-signed': async (verifier, content) => ({
    protocol: 'openid4vp-v1-signed',
    data: {
      request: await signRequestParameters(
        verifier,
        { client_id: verifier.clientId, expected_origins: [...content.expectedOrigins], ...parameters(content) },
        content,
      ),
    },
  }),
  'openid4vp-v1-unsigned': async (_verifier, content) => ({ protocol: 'openid4vp-v1-unsigned', data: parameters(content) }),
  // ISO/IEC TS 18013-7 Annex C (annexC.ts): `{deviceRequest, encryptionInfo}` for the same query
  // and nonce, encrypted to its own recipient key; nothing in it is signed.
  'org-iso-mdoc': async (_verifier, content) => {
    if (content.annexCRecipientKey === undefined) throw new Error('an org-iso-mdoc request without its recipient key');
    return { protocol: 'org-iso-mdoc', data: { ...annexCRequestData(content.dcqlQuery, content.nonce, content.annexCRecipientKey) } };
  },
};

/**
 * The session's `dc_api_request`: an array in the order of `dc_api_protocols` when the
 * integrator gave it (`asArray`), else the single request.
 */
export const dcApiRequest = async (
  verifier: Verifier,
  protocols: readonly DcApiProtocol[],
  asArray: boolean,
  content: DcApiRequestContent,
): Promise<DcApiRequest | DcApiRequest[]> => {
  const requests = await Promise.all(protocols.map((protocol) => dcApiRequestBuilders[protocol](verifier, content)));
  const [only] = requests;
  if (asArray || requests.length !== 1 || only === undefined) return requests;
  return only;
};
