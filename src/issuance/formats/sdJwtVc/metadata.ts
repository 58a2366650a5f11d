// An SD-JWT VC configuration in the Credential Issuer Metadata (OpenID4VCI 1.0 Appendix A.3).
import { scopeOf, type SdJwtVcConfiguration } from '../../configurations.js';
import { credentialMetadata } from '../../credentialMetadata.js';

export const sdJwtVcMetadata = (c: SdJwtVcConfiguration) => ({
  format: 'dc+sd-jwt',
  scope: scopeOf(c),
  vct: c.vct,
  cryptographic_binding_methods_supported: ['jwk'],
  credential_signing_alg_values_supported: ['ES256'],
  proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256'] } },
  credential_metadata: credentialMetadata(c),
});
