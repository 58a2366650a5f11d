// One interface for every credential format: a presentation answering a DCQL credential query is
// checked by that format's module (`dc+sd-jwt`: sdJwtVc.ts, `mso_mdoc`: msoMdoc.ts), both over the
// same issuer trust verifier and status checker, and comes back as the same credential object,
// which says its `format` (and `vct` or `doctype`).
import { isLeft, right, type Either } from 'fp-ts/lib/Either.js';
import type { Logger } from '../log.js';
import type { HandoverInfo } from '../mdoc/sessionTranscript.js';
import type { TrustVerifier } from '../trust/issuerTrust.js';
import { requiresHolderBinding, type CredentialQuery, type MsoMdocQuery, type SdJwtVcQuery } from './dcql.js';
import { verifyMsoMdocPresentation } from './msoMdoc.js';
import { verifySdJwtVcPresentation, type CredentialRequirements, type PresentationContext, type VerificationFailure, type VerifiedCredential } from './sdJwtVc.js';
import type { CredentialStatusChecker } from './status/statusCheck.js';

export interface FormatContext extends PresentationContext {
  /** An mdoc's SessionTranscript handover: the request's, by redirect or over the DC API. */
  readonly handover: HandoverInfo;
}

/** Checks one presentation against its credential query and the claims (one claim set) it must satisfy. */
export type PresentationVerifier = <Q extends CredentialQuery>(
  presentation: string,
  query: Q,
  claims: readonly Q['claims'][number][],
  context: FormatContext,
) => Promise<Either<VerificationFailure, VerifiedCredential>>;

/** The query's `trusted_authorities` by type: aki key identifiers and etsi_tl list URLs. */
const trustedAuthoritiesOf = (query: CredentialQuery): Pick<CredentialRequirements, 'trustedAuthorityKeyIds' | 'trustedListUrls'> => {
  const authorities = query.trusted_authorities;
  if (authorities === undefined) return {};
  const values = (type: string) => authorities.filter((a) => a.type === type).flatMap((a) => a.values);
  const keyIds = values('aki');
  const listUrls = values('etsi_tl');
  return { ...(keyIds.length > 0 ? { trustedAuthorityKeyIds: keyIds } : {}), ...(listUrls.length > 0 ? { trustedListUrls: listUrls } : {}) };
};

export const createPresentationVerifier = (trust: TrustVerifier, status: CredentialStatusChecker, log: Logger): PresentationVerifier => {
  const sdJwtVc = async (presentation: string, query: SdJwtVcQuery, claims: SdJwtVcQuery['claims'], context: FormatContext) => {
    const verified = await verifySdJwtVcPresentation(
      presentation,
      { vctValues: query.meta.vct_values, claimPaths: claims.map((c) => c.path), requireHolderBinding: requiresHolderBinding(query), ...trustedAuthoritiesOf(query) },
      context,
      trust,
      status,
    );
    if (isLeft(verified)) return verified;
    const { credential } = verified.right;
    return right({ ...verified.right, credential: { format: 'dc+sd-jwt', ...(typeof credential.claims['vct'] === 'string' ? { vct: credential.claims['vct'] } : {}), ...credential } });
  };
  const msoMdoc = async (presentation: string, query: MsoMdocQuery, claims: MsoMdocQuery['claims'], context: FormatContext) => {
    const verified = await verifyMsoMdocPresentation(
      presentation,
      { doctypeValue: query.meta.doctype_value, claimPaths: claims.map((c) => c.path), ...trustedAuthoritiesOf(query) },
      context,
      trust,
      status,
    );
    if (isLeft(verified)) return verified;
    const { droppedElements, ...delivered } = verified.right;
    // Names only: the values never leave the format module.
    if (droppedElements.length > 0) log.info('mdoc elements not asked for were dropped', { credentialId: context.credentialId, elements: droppedElements });
    return right(delivered);
  };
  return (presentation, query, claims, context) =>
    query.format === 'mso_mdoc'
      ? msoMdoc(presentation, query, claims as MsoMdocQuery['claims'], context)
      : sdJwtVc(presentation, query, claims as SdJwtVcQuery['claims'], context);
};
