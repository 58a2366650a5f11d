// What the Digital Credentials API tests share: the page's origin and the DCQL queries of a
// POST /oidc4vp with flow_type dc_api.
import { X509Certificate } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import { PID_VCT, type VerificationHarness } from './wallet/connector.js';

export const ORIGIN = 'https://shop.example';
export const MDL = 'org.iso.18013.5.1.mDL';
export const NS = 'org.iso.18013.5.1';

export const pidQuery = { id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [PID_VCT] }, claims: [{ path: ['given_name'] }, { path: ['family_name'] }] };
export const mdlQuery = { id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: MDL }, claims: [{ path: [NS, 'family_name'], intent_to_retain: false }, { path: [NS, 'birth_date'], intent_to_retain: true }] };

/** The body of POST /oidc4vp for a DC API session asking `credentials`. */
export const dcApiBody = (credentials: readonly unknown[], extra: Record<string, unknown> = {}) => ({
  flow_type: 'dc_api',
  expected_origins: [ORIGIN],
  dcql_query: { credentials },
  ...extra,
});

export interface DcApiEntry {
  readonly protocol: string;
  readonly data: Record<string, unknown>;
}

export interface CreatedDcApi {
  readonly state: string;
  readonly expires_at: string;
  readonly dc_api_request: DcApiEntry | DcApiEntry[];
}

/** POST /oidc4vp for a DC API session, its 201 body. */
export const createDcApi = async (h: VerificationHarness, credentials: readonly unknown[], extra: Record<string, unknown> = {}): Promise<CreatedDcApi> =>
  (await h.request(dcApiBody(credentials, extra))) as unknown as CreatedDcApi;

/** The one `dc_api_request` of a session created without `dc_api_protocols`. */
export const single = (created: CreatedDcApi): DcApiEntry => {
  if (Array.isArray(created.dc_api_request)) throw new Error('expected a single dc_api_request');
  return created.dc_api_request;
};

/** What a wallet reads from a DC API request. */
export interface ReadRequest {
  readonly parameters: Record<string, unknown>;
  readonly nonce: string;
  /** The response-encryption key of `client_metadata`. */
  readonly key: JWK;
}

/** What a wallet reads from a DC API request: a signed one verified with its x5c leaf. */
export const readRequest = async (entry: DcApiEntry): Promise<ReadRequest> => {
  let parameters: Record<string, unknown>;
  if (entry.protocol === 'openid4vp-v1-signed') {
    const jwt = String(entry.data['request']);
    const [leaf] = decodeProtectedHeader(jwt).x5c ?? [];
    const certificate = new X509Certificate(Buffer.from(String(leaf), 'base64'));
    parameters = (await jwtVerify(jwt, certificate.publicKey, { typ: 'oauth-authz-req+jwt', audience: 'https://self-issued.me/v2', algorithms: ['ES256'] })).payload;
  } else {
    parameters = entry.data;
  }
  const metadata = parameters['client_metadata'] as { jwks: { keys: JWK[] } };
  return { parameters, nonce: String(parameters['nonce']), key: metadata.jwks.keys[0]! };
};
