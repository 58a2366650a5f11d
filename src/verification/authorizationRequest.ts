// What every Authorization Request the verifier makes shares (OpenID4VP 1.0 section 5, HAIP):
// who the verifier is (the access certificate and the client id derived from it), where the
// wallet answers, the response encryption offered in `client_metadata`, and how request
// parameters are signed as a request object (JAR), with the verifier's registration certificate
// in `verifier_info` when it has one. The request URI's request object (requestObject/) and the
// DC API's signed request (dcApi/) are both built here; which verifier signs for a tenant is
// verifiers.ts's business.
import type { JWK, JWTPayload } from 'jose';
import { signCompactJws } from '../crypto/jws.js';
import type { SigningIdentity } from '../crypto/signingIdentity.js';
import type { VerifierRegistration } from '../tenantIdentity/ports.js';

export const REQUEST_OBJECT_TYPE = 'oauth-authz-req+jwt';
/** The static audience of a request object for a wallet without discovery (OpenID4VP 1.0 section 5.8). */
const SELF_ISSUED_AUDIENCE = 'https://self-issued.me/v2';
export const RESPONSE_ENCRYPTION = { alg: 'ECDH-ES', enc: ['A128GCM', 'A256GCM'] } as const;

export interface Verifier {
  readonly identity: SigningIdentity;
  /** `x509_hash:` + base64url SHA-256 of the access certificate's DER. */
  readonly clientId: string;
  readonly publicUrl: string;
  /** The tenant's registration as a relying party, when it has one: carried in `verifier_info`. */
  readonly registration?: VerifierRegistration;
}

/**
 * The `verifier_info` format of an ETSI TS 119 475 registration certificate (`rc-wrp+jwt`), as
 * the EUDI specifications use it (ETSI TS 119 472-2, OIDFVP-HAIP-COMMON-REQ-RO-13 to 16; the EUDI
 * reference verifier): `data` is the certificate JWT as issued, without `credential_ids` (it
 * covers every credential asked for).
 */
export const REGISTRATION_CERTIFICATE_FORMAT = 'registration_cert';

/** `verifier_info` (OpenID4VP 1.0 section 5.1) of a verifier with a registration, else nothing. */
const verifierInfo = (verifier: Verifier) =>
  verifier.registration === undefined
    ? {}
    : { verifier_info: [{ format: REGISTRATION_CERTIFICATE_FORMAT, data: verifier.registration.registrationCertificate }] };

export const responseUri = (publicUrl: string, state: string): string =>
  `${publicUrl}/oidc4vp/${encodeURIComponent(state)}/response`;

/** `client_metadata`: the request's response-encryption key and the formats the verifier takes. */
export const clientMetadata = (kid: string, publicJwk: JWK) => {
  const { kty, crv, x, y } = publicJwk;
  return {
    jwks: { keys: [{ kty, crv, x, y, use: 'enc', alg: RESPONSE_ENCRYPTION.alg, kid }] },
    encrypted_response_enc_values_supported: [...RESPONSE_ENCRYPTION.enc],
    vp_formats_supported: {
      'dc+sd-jwt': { 'sd-jwt_alg_values': ['ES256'], 'kb-jwt_alg_values': ['ES256'] },
      // COSE algorithm identifiers (OpenID4VP 1.0, B.2.2): ES256 is -7.
      mso_mdoc: { issuerauth_alg_values: [-7], deviceauth_alg_values: [-7] },
    },
  };
};

/**
 * Request parameters signed as a request object (JAR, RFC 9101): `typ` oauth-authz-req+jwt, the
 * access certificate chain in `x5c`, `aud` the static self-issued audience (OpenID4VP 1.0 5.8),
 * `verifier_info` when the verifier is registered, valid until the session expires. The DC API's
 * signed request is one too (OpenID4VP 1.0 A.3.2).
 */
export const signRequestParameters = (verifier: Verifier, payload: JWTPayload, content: { readonly now: Date; readonly expiresAt: Date }): Promise<string> =>
  signCompactJws(verifier.identity.signer, { typ: REQUEST_OBJECT_TYPE, x5c: [...verifier.identity.x5c] }, {
    ...payload,
    ...verifierInfo(verifier),
    aud: SELF_ISSUED_AUDIENCE,
    iat: Math.floor(content.now.getTime() / 1000),
    exp: Math.floor(content.expiresAt.getTime() / 1000),
  });
