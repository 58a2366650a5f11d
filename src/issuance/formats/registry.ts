// The credential formats this issuer signs and describes: one line per format
// (src/issuance/credentialSigner.ts).
import type { CredentialFormats } from '../credentialSigner.js';
import { msoMdocMetadata } from './msoMdoc/metadata.js';
import { signMsoMdoc } from './msoMdoc/signer.js';
import { sdJwtVcMetadata } from './sdJwtVc/metadata.js';
import { signSdJwtVc } from './sdJwtVc/signer.js';

export const credentialFormats: CredentialFormats = {
  'dc+sd-jwt': { sign: signSdJwtVc, metadata: sdJwtVcMetadata },
  mso_mdoc: { sign: signMsoMdoc, metadata: msoMdocMetadata },
};
