// The documents a wallet reads before it starts: Credential Issuer Metadata (OpenID4VCI section
// 12.2, `display` and `claims` nested in `credential_metadata`), the issuer's own Authorization
// Server Metadata (RFC 8414; the issuer is its own authorization server, so the issuer metadata
// names none), each for one credential issuer (its identifier: the deployment's PUBLIC_URL or a
// tenant's own), and SD-JWT VC Type Metadata in the draft-13 array form; served by ./routes.ts.
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import type { CredentialConfiguration, SdJwtVcConfiguration } from '../configurations.js';
import { describeCredential, formatOf, type CredentialFormats } from '../credentialSigner.js';
import { AUTHORIZATION_CODE_GRANT, endpointUrl, PATHS, PRE_AUTHORIZED_CODE_GRANT } from '../context.js';
import { CODE_CHALLENGE_METHOD } from '../pkce.js';
import { CLIENT_AUTH_METHOD } from '../walletAttestation.js';

export const credentialIssuerMetadata = (identifier: string, configurations: Iterable<CredentialConfiguration>, formats: CredentialFormats) => ({
  credential_issuer: identifier,
  credential_endpoint: endpointUrl(identifier, PATHS.credential),
  nonce_endpoint: endpointUrl(identifier, PATHS.nonce),
  credential_configurations_supported: Object.fromEntries([...configurations].map((c) => [c.id, describeCredential(formats, formatOf(c), c)])),
});

export const authorizationServerMetadata = (identifier: string) => ({
  issuer: identifier,
  authorization_endpoint: endpointUrl(identifier, PATHS.authorize),
  token_endpoint: endpointUrl(identifier, PATHS.token),
  pushed_authorization_request_endpoint: endpointUrl(identifier, PATHS.par),
  require_pushed_authorization_requests: true,
  response_types_supported: ['code'],
  grant_types_supported: [AUTHORIZATION_CODE_GRANT, PRE_AUTHORIZED_CODE_GRANT],
  'pre-authorized_grant_anonymous_access_supported': true,
  code_challenge_methods_supported: [CODE_CHALLENGE_METHOD],
  // `none` stays for the pre-authorized flow (WALLET_ATTESTATION=optional); the authorization code flow requires the attestation.
  token_endpoint_auth_methods_supported: [CLIENT_AUTH_METHOD, 'none'],
  client_attestation_signing_alg_values_supported: ['ES256'],
  client_attestation_pop_signing_alg_values_supported: ['ES256'],
  authorization_response_iss_parameter_supported: true,
  dpop_signing_alg_values_supported: ['ES256'],
});

/** SD-JWT VC Type Metadata: type display `{lang, name}`, claim display `{lang, label}`. */
export const typeMetadata = (c: SdJwtVcConfiguration) => ({
  vct: c.vct,
  name: c.display[0]?.name,
  display: c.display.map((d) => ({ lang: d.lang, name: d.name, ...(d.description === undefined ? {} : { description: d.description }) })),
  claims: c.claims.map((claim) => ({
    path: claim.path,
    sd: claim.sd,
    mandatory: claim.mandatory,
    display: claim.display.map((d) => ({ lang: d.lang, label: d.name, ...(d.description === undefined ? {} : { description: d.description }) })),
  })),
});

/** No SD-JWT VC configuration with this id: Type Metadata describes SD-JWT VC types; an mdoc's doctype has none. */
export interface TypeMetadataNotFound {
  readonly _tag: 'TypeMetadataNotFound';
}

export const typeMetadataOf = (configurations: ReadonlyMap<string, CredentialConfiguration>, id: string): Either<TypeMetadataNotFound, ReturnType<typeof typeMetadata>> => {
  const configuration = configurations.get(id);
  return !configuration || configuration.format === 'mso_mdoc' ? left({ _tag: 'TypeMetadataNotFound' }) : right(typeMetadata(configuration));
};
