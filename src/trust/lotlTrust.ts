// Trust in lotl mode (X509_TRUST_RESOLUTION_MODE=lotl): the issuer chain is resolved against the
// trusted lists held (`matching.ts`), and the credential object gets the spec's enriched trust
// fields. The policy is the credential category's (X509_TRUST_POLICY_<CATEGORY>, defaulting to
// X509_TRUST_POLICY); a credential of no category (no service of an attestation type vouches for
// it, and it is not a PID) takes X509_TRUST_POLICY.
// - `disabled`: no trust fields at all (`supportTrustAnchor: false`);
// - `evaluate`: every field reported, the credential delivered;
// - `enforce`: an untrusted issuer or a revoked certificate is VERIFICATION_FAILED as a
//   trust-enforcement failure (same-device: redirected with a response code).
// With X509_VERIFY_TRUST_ANCHOR=true the static anchors still count (`trustSource: static`) for
// an issuer no list knows or can vouch for; a list that says withdrawn or suspended wins over them.
// A chain anchored by a list or an anchor has its CRLs checked as in static mode.
import type { Either } from 'fp-ts/lib/Either.js';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import type { x509 } from '../crypto/x509.js';
import type { CrlChecker } from './crl.js';
import { revocationBelow, type EnrichedTrustFields, type TrustPolicy, type TrustVerifier, type VerificationFailure } from './issuerTrust.js';
import { resolveIssuer, type Resolution, type TrustSnapshot } from './matching.js';
import { failureReasonOf, isQualified, type CredentialCategory, type TrustFailureReason } from './serviceMapping.js';
import { findTrustAnchor, sameCertificate, validateChain } from './x509Chain.js';

type Certificate = x509.X509Certificate;

export type CategoryPolicies = Readonly<Record<CredentialCategory | 'default', TrustPolicy>>;

export interface LotlTrustOptions {
  readonly lists: { snapshot(): TrustSnapshot };
  /** X509_TRUST_ANCHORS when X509_VERIFY_TRUST_ANCHOR is true; undefined otherwise. */
  readonly staticAnchors: readonly Certificate[] | undefined;
  readonly crl: CrlChecker;
  readonly policies: CategoryPolicies;
  /** Credential types that are PIDs: SD-JWT VC `vct`s and mdoc docTypes. */
  readonly pidVcts: ReadonlySet<string>;
  readonly pidDoctypes: ReadonlySet<string>;
}

const failureReason = (resolution: Resolution): TrustFailureReason => {
  switch (resolution.outcome) {
    case 'withdrawn':
    case 'suspended':
      return failureReasonOf(resolution.outcome);
    case 'unavailable':
      return 'trust_list_unavailable';
    default:
      return 'issuer_not_found';
  }
};

/** errorDetails of an enforced trust failure: the reason code and what decided it (never personal data). */
const describeFailure = (reason: TrustFailureReason, resolution: Resolution): string => {
  const match = resolution.match;
  const where = match ? `: service "${match.service.serviceName}" of ${match.service.providerName || 'a provider'} in ${match.list.url}` : '';
  return `issuer is not trusted (${reason})${where}`;
};

/** Where the chain is anchored, and the certificates below the anchor (for their CRLs). */
interface Anchored {
  readonly source: 'lotl' | 'static';
  readonly anchor: Certificate;
  readonly issued: readonly Certificate[];
}

const anchoredBy = async (
  resolution: Resolution,
  chain: readonly Certificate[],
  staticAnchors: readonly Certificate[] | undefined,
  now: Date,
): Promise<Anchored | undefined> => {
  const match = resolution.match;
  if (resolution.outcome === 'trusted' && match) {
    return { source: 'lotl', anchor: match.certificate, issued: chain.slice(0, match.how === 'same' ? match.index : match.index + 1) };
  }
  if (staticAnchors === undefined || resolution.outcome === 'withdrawn' || resolution.outcome === 'suspended') return undefined;
  const anchor = await findTrustAnchor(chain, staticAnchors, now);
  return anchor ? { source: 'static', anchor, issued: chain.filter((c) => !sameCertificate(c, anchor)) } : undefined;
};

export const createLotlTrustVerifier = (options: LotlTrustOptions): TrustVerifier => ({
  async verify(chain, now, credential = {}) {
    const valid = await validateChain(chain, now);
    if (isLeft(valid)) return left({ reason: `invalid X.509 chain: ${valid.left}`, trustEnforcement: false });

    const isPid =
      (typeof credential.vct === 'string' && options.pidVcts.has(credential.vct)) ||
      (typeof credential.doctype === 'string' && options.pidDoctypes.has(credential.doctype));
    const snapshot = options.lists.snapshot();
    const resolution = await resolveIssuer(snapshot, chain, now, { isPid });
    const trustListDigests = [...new Set(resolution.decidedBy.map((list) => list.digest))];
    const decided = { chain, trustedThrough: resolution.trustedThrough, trustListDigests };
    const category = resolution.category ?? (isPid ? 'PID' : undefined);
    const policy = options.policies[category ?? 'default'];
    if (policy === 'disabled') return right({ ...decided, trust: { supportTrustAnchor: false } });

    const enforce = policy === 'enforce';
    const refused = (reason: string): Either<VerificationFailure, never> => left({ reason, trustEnforcement: true, trustListDigests });
    const anchored = await anchoredBy(resolution, chain, options.staticAnchors, now);
    let revoked = false;
    if (anchored) {
      const revocation = await revocationBelow(anchored.issued, anchored.anchor, options.crl, now, enforce);
      if (revocation.status === 'unknown' || (revocation.status === 'revoked' && enforce)) return refused(revocation.reason);
      revoked = revocation.status === 'revoked';
    }
    const reason = anchored ? undefined : failureReason(resolution);
    if (enforce && reason !== undefined) return refused(describeFailure(reason, resolution));

    const freshness = resolution.decidedBy.map((list) => snapshot.freshness(list, now));
    const cachedFallback = freshness.some((f) => f.cachedFallback);
    const pastNextUpdate = freshness.some((f) => f.pastNextUpdate);
    const match = resolution.match;
    const territory = match ? (match.service.country ?? match.list.list.territory) : undefined;
    const fields: EnrichedTrustFields = {
      ...(category ? { credentialCategory: category } : {}),
      trustSource: anchored?.source ?? 'untrusted',
      ...(territory ? { supervisoryMemberState: territory } : {}),
      qualifiedStatus: anchored?.source === 'lotl' && isQualified(resolution.category),
      ...(freshness.length > 0 ? { trustDataTimestamp: new Date(Math.min(...freshness.map((f) => f.fetchedAt.getTime()))).toISOString() } : {}),
      ...(reason ? { trustFailureReason: reason } : {}),
      ...(cachedFallback || pastNextUpdate ? { staleTrustData: { cachedFallback, pastNextUpdate } } : {}),
    };
    return right({ ...decided, trust: { supportTrustAnchor: true, isTrusted: anchored !== undefined, isCertificateRevoked: revoked, ...fields } });
  },
});
