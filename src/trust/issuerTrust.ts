// What the SD-JWT VC verifier asks about an issuer's `x5c`: is the chain valid (always checked; a
// failure fails verification), and, with X509_VERIFY_TRUST_ANCHOR=true, does it resolve to a static
// trust anchor and is any of its certificates revoked.
//
// Policy (X509_TRUST_POLICY, the spec's per-category policy; static mode has no categories, so
// one for all):
// - `evaluate` (default): an unanchored chain is reported `isTrusted: false` and a revoked one
//   `isCertificateRevoked: true`; the credential is still delivered and the integrator decides.
// - `enforce`: either of those fails verification as a trust-enforcement failure.
// - `disabled`: no anchoring, no CRLs, and no trust fields in the credential object; the chain
//   itself is still validated.
// In both, a revocation status that cannot be established (CRL unreachable, timed out, badly
// signed, stale) fails verification: "not revoked" is never reported without a CRL saying so.
// CRLs are only fetched for anchored chains; an unanchored one reports `isCertificateRevoked: false`
// meaning no CRL was consulted (`isTrusted: false` already tells the integrator to refuse it).
import type { Either } from 'fp-ts/lib/Either.js';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import type { x509 } from '../crypto/x509.js';
import { createEgress } from '../egress/egress.js';
import { createCrlChecker, type CrlChecker, type RevocationStatus } from './crl.js';
import type { CredentialCategory, TrustFailureReason } from './serviceMapping.js';
import { trustAnchorCertificates } from './trustAnchors.js';
import { findTrustAnchor, sameCertificate, validateChain } from './x509Chain.js';

type Certificate = x509.X509Certificate;

export type TrustPolicy = 'evaluate' | 'enforce' | 'disabled';

/** Why a credential failed verification: `reason` is the callback's errorDetails. */
export interface VerificationFailure {
  readonly reason: string;
  /** True when only the trust policy (anchor, revocation) refused it, not the credential's own checks. */
  readonly trustEnforcement: boolean;
  /** lotl mode: SHA-256 of each trusted list version the decision rests on. */
  readonly trustListDigests?: readonly string[];
}

/** The spec's enriched trust fields, only in lotl mode (`src/trust/lotlTrust.ts`). */
export interface EnrichedTrustFields {
  readonly credentialCategory?: CredentialCategory;
  readonly trustSource: 'lotl' | 'static' | 'untrusted';
  readonly supervisoryMemberState?: string;
  readonly qualifiedStatus: boolean;
  readonly trustDataTimestamp?: string;
  readonly trustFailureReason?: TrustFailureReason;
  readonly staleTrustData?: { readonly cachedFallback: boolean; readonly pastNextUpdate: boolean };
}

/** The credential object's trust fields: `isTrusted` and `isCertificateRevoked` only when anchoring is on. */
export type TrustFields =
  | { readonly supportTrustAnchor: false }
  | ({ readonly supportTrustAnchor: true; readonly isTrusted: boolean; readonly isCertificateRevoked: boolean } & Partial<EnrichedTrustFields>);

export interface TrustedChain {
  /** Leaf first, as sent. */
  readonly chain: readonly Certificate[];
  readonly trust: TrustFields;
  /** The trust anchor the chain resolved to, when anchoring is on and it did. */
  readonly anchor?: Certificate;
  /** lotl mode: URLs of the lists through which a trusted service vouches for the issuer (DCQL `etsi_tl`). */
  readonly trustedThrough?: ReadonlySet<string>;
  /** lotl mode: SHA-256 of each trusted list version the decision rests on. */
  readonly trustListDigests?: readonly string[];
}

/** What the verifier knows of the credential beyond its chain: its type decides whether it is a PID. */
export interface PresentedCredential {
  readonly vct?: unknown;
  /** An mdoc's docType (from its MSO). */
  readonly doctype?: unknown;
}

export interface TrustVerifier {
  /** `chain` is the decoded `x5c` (`parseX5c`), leaf first. */
  verify(chain: readonly Certificate[], now: Date, credential?: PresentedCredential): Promise<Either<VerificationFailure, TrustedChain>>;
}

/**
 * Revocation of the certificates an anchor vouches for, `issued` leaf first, the last one issued
 * by `anchor` (which is trusted by configuration, not by a CRL). The first unknown status ends
 * the check; so does the first revocation when `stopAtRevoked` (enforce: nothing else matters).
 */
export const revocationBelow = async (
  issued: readonly Certificate[],
  anchor: Certificate,
  crl: CrlChecker,
  now: Date,
  stopAtRevoked: boolean,
): Promise<RevocationStatus> => {
  let revoked: RevocationStatus | undefined;
  for (const [index, certificate] of issued.entries()) {
    const status = await crl.check(certificate, index, issued[index + 1] ?? anchor, now);
    if (status.status === 'unknown') return status;
    if (status.status === 'revoked') {
      if (stopAtRevoked) return status;
      revoked ??= status;
    }
  }
  return revoked ?? { status: 'good' };
};

export interface TrustVerifierOptions {
  readonly verifyTrustAnchor: boolean;
  readonly anchors: readonly Certificate[];
  readonly crl: CrlChecker;
  readonly policy?: TrustPolicy;
}

const failure = (reason: string, trustEnforcement: boolean): Either<VerificationFailure, never> => left({ reason, trustEnforcement });

export const createTrustVerifier = (options: TrustVerifierOptions): TrustVerifier => {
  const enforce = options.policy === 'enforce';
  return {
    async verify(chain, now) {
      const valid = await validateChain(chain, now);
      if (isLeft(valid)) return failure(`invalid X.509 chain: ${valid.left}`, false);
      if (!options.verifyTrustAnchor) return right({ chain, trust: { supportTrustAnchor: false } });

      const anchor = await findTrustAnchor(chain, options.anchors, now);
      if (!anchor) {
        if (enforce) return failure('issuer chain does not resolve to a configured trust anchor', true);
        return right({ chain, trust: { supportTrustAnchor: true, isTrusted: false, isCertificateRevoked: false } });
      }
      const revocation = await revocationBelow(chain.filter((c) => !sameCertificate(c, anchor)), anchor, options.crl, now, enforce);
      if (revocation.status === 'unknown' || (revocation.status === 'revoked' && enforce)) return failure(revocation.reason, true);
      return right({ chain, trust: { supportTrustAnchor: true, isTrusted: true, isCertificateRevoked: revocation.status === 'revoked' }, anchor });
    },
  };
};

/** The X509_* settings of the configuration that static trust uses. */
export interface StaticTrustSettings {
  readonly x509VerifyTrustAnchor: boolean;
  /** Trust anchor certificates, DER in base64. */
  readonly x509TrustAnchors: readonly string[];
  readonly x509CrlTimeoutSeconds: number;
  readonly x509TrustPolicy: TrustPolicy;
  readonly egressAllowPrivateNetworks: boolean;
}

/** The verifier the configuration's settings describe. */
export const trustVerifierFromConfig = (config: StaticTrustSettings): TrustVerifier =>
  createTrustVerifier({
    verifyTrustAnchor: config.x509VerifyTrustAnchor && config.x509TrustPolicy !== 'disabled',
    anchors: trustAnchorCertificates(config.x509TrustAnchors),
    crl: createCrlChecker({ egress: createEgress({ allowPrivateNetworks: config.egressAllowPrivateNetworks }), timeoutMs: config.x509CrlTimeoutSeconds * 1000 }),
    policy: config.x509TrustPolicy,
  });
