// The credential formats this issuer signs: one line per format (src/issuance/credentialSigner.ts).
import type { CredentialSigners } from '../credentialSigner.js';
import { msoMdocSigner } from './msoMdoc/signer.js';
import { sdJwtVcSigner } from './sdJwtVc/signer.js';

export const credentialSigners: CredentialSigners = {
  'dc+sd-jwt': sdJwtVcSigner,
  mso_mdoc: msoMdocSigner,
};
