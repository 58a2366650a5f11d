// The presented-credential formats the verifier takes, one line each (its folder beside this file
// holds the checks); the verification feature fills it with the trust verifier and status checker.
import type { Logger } from '../../log.js';
import type { TrustVerifier } from '../../trust/issuerTrust.js';
import { presentationVerifier, type PresentationVerifier } from '../presentedCredentialVerifier.js';
import type { CredentialStatusChecker } from '../status/statusCheck.js';
import { msoMdocVerifier } from './msoMdoc/msoMdoc.js';
import { sdJwtVcVerifier } from './sdJwtVc/sdJwtVc.js';

export const createPresentationVerifier = (trust: TrustVerifier, status: CredentialStatusChecker, log: Logger): PresentationVerifier =>
  presentationVerifier({
    'dc+sd-jwt': sdJwtVcVerifier(trust, status),
    mso_mdoc: msoMdocVerifier(trust, status, log),
  });
