// An mdoc configuration in the Credential Issuer Metadata (OpenID4VCI 1.0 Appendix A.2): the
// device key is a COSE_Key; the MSO is signed with COSE ES256 (-7).
import { scopeOf, type MsoMdocConfiguration } from '../../configurations.js';
import { credentialMetadata } from '../../credentialMetadata.js';

export const msoMdocMetadata = (c: MsoMdocConfiguration) => ({
  format: 'mso_mdoc',
  doctype: c.doctype,
  scope: scopeOf(c),
  cryptographic_binding_methods_supported: ['cose_key'],
  credential_signing_alg_values_supported: [-7],
  proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256'] } },
  credential_metadata: credentialMetadata(c),
});
