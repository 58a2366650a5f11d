// The status of a presented credential (draft-ietf-oauth-status-list, "Validation Rules"), checked
// after the credential itself has passed every other check, so no list is fetched for a
// credential that fails anyway. A credential with `status.status_list` supports revocation; its
// entry in the Status List Token at `uri` decides:
// - VALID passes; INVALID (revoked), SUSPENDED, an application-specific or unknown value, and an
//   `idx` outside the list fail verification, whatever the policy.
// - A list that cannot be had (unreachable, unverifiable, expired, or signed by someone with no
//   tie to the credential's issuer) fails closed under STATUS_LIST_FAILURE_POLICY=enforce; under
//   `evaluate` the credential passes and says `statusCheck: "unavailable"`.
// The list's signer must be the credential's own signing certificate, or chain (through the x5c
// it carries) to a CA certificate of the credential's chain, or resolve to the same trust anchor:
// otherwise anyone could publish a list saying a stolen credential is fine.
import { left, right, isLeft, type Either } from 'fp-ts/lib/Either.js';
import { createEgress } from '../../egress/egress.js';
import type { TrustedChain, TrustVerifier, VerificationFailure } from '../../trust/issuerTrust.js';
import { sameCertificate } from '../../trust/x509Chain.js';
import { isRecord } from '../../../streams/kernel.js';
import { createStatusListClient, type FetchedStatusList, type StatusListClient, type StatusListClientOptions } from './statusListClient.js';
import { STATUS } from '../../../streams/statusType.js';
import { statusAt } from '../../statusList/statusList.js';
import type { StatusListForm } from './fetchStatusList.js';

export type StatusFailurePolicy = 'enforce' | 'evaluate';

/** The credential object's status fields. `statusCheck` is our addition, under `evaluate` only. */
export type StatusFields =
  | { readonly supportRevocation: false }
  | { readonly supportRevocation: true; readonly statusCheck?: 'valid' | 'unavailable' };

export interface CredentialStatusChecker {
  /**
   * `payload`: the credential's verified payload; `issuer`: its chain as trust judged it;
   * `preferred`: the list's form to ask for first (the credential's own: CWT for an mdoc).
   */
  check(payload: Record<string, unknown>, issuer: TrustedChain, now: Date, preferred?: StatusListForm): Promise<Either<VerificationFailure, StatusFields>>;
}

const fail = (reason: string): Either<VerificationFailure, never> => left({ reason, trustEnforcement: false });

const isIndex = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** Whether the list's signer is the credential's issuer or shares its trust. */
const signedForIssuer = (list: FetchedStatusList, issuer: TrustedChain): boolean => {
  const [signer, ...signerCas] = list.signer.chain;
  const [leaf, ...issuerCas] = issuer.chain;
  if (signer && leaf && sameCertificate(signer, leaf)) return true;
  // Each chain was validated certificate by certificate, so a shared CA certificate ties them.
  if (signerCas.some((ca) => issuerCas.some((other) => sameCertificate(ca, other)))) return true;
  return list.signer.anchor !== undefined && issuer.anchor !== undefined && sameCertificate(list.signer.anchor, issuer.anchor);
};

const NOT_VALID: Readonly<Record<number, string>> = {
  [STATUS.INVALID]: 'credential is revoked: its status list says INVALID',
  [STATUS.SUSPENDED]: 'credential is suspended: its status list says SUSPENDED',
};

export const createCredentialStatusChecker = (options: { readonly client: StatusListClient; readonly policy: StatusFailurePolicy }): CredentialStatusChecker => {
  const evaluate = options.policy === 'evaluate';
  const unavailable = (reason: string): Either<VerificationFailure, StatusFields> =>
    evaluate ? right({ supportRevocation: true, statusCheck: 'unavailable' }) : fail(`credential status unknown: ${reason}`);
  return {
    async check(payload, issuer, now, preferred) {
      const status = payload['status'];
      if (status === undefined) return right({ supportRevocation: false });
      if (!isRecord(status)) return fail('credential status claim is not an object');
      const reference = status['status_list'];
      // Another status mechanism, which this verifier does not read.
      if (reference === undefined) return right({ supportRevocation: false });
      if (!isRecord(reference) || !isIndex(reference['idx']) || typeof reference['uri'] !== 'string') {
        return fail('credential status.status_list is not {idx: a non-negative integer, uri: a string}');
      }
      const { idx, uri } = reference as { idx: number; uri: string };
      const list = await options.client.get(uri, now, preferred);
      if (isLeft(list)) return unavailable(`status list ${uri} ${list.left}`);
      if (!signedForIssuer(list.right, issuer)) return unavailable(`status list ${uri} is not signed by the credential's issuer or a certificate of its trust`);
      const value = statusAt(list.right.list, idx);
      if (value === undefined) return fail('credential status index is outside its status list');
      if (value !== STATUS.VALID) return fail(NOT_VALID[value] ?? `credential status is 0x${value.toString(16).padStart(2, '0')}, which is not VALID`);
      return right(evaluate ? { supportRevocation: true, statusCheck: 'valid' } : { supportRevocation: true });
    },
  };
};

/** The STATUS_LIST_* settings of the configuration. */
export interface StatusListSettings {
  readonly statusListFailurePolicy: StatusFailurePolicy;
  readonly statusListFetchTimeoutSeconds: number;
  readonly statusListMaxBytes: number;
  readonly statusListCacheMaxSeconds: number;
  readonly statusListCacheMaxBytes: number;
  readonly egressAllowPrivateNetworks: boolean;
  /** PUBLIC_URL: the status lists this connector issues are fetched from its own origin, whatever its address. */
  readonly publicUrl: string;
}

/** The status list client the configuration's settings describe (one per deployment, its cache shared); `trust` judges the lists' signers. */
export const statusListClientFromConfig = (
  config: Omit<StatusListSettings, 'statusListFailurePolicy'>,
  trust: TrustVerifier,
  onFetch?: StatusListClientOptions['onFetch'],
): StatusListClient =>
  createStatusListClient({
    ...(onFetch ? { onFetch } : {}),
    fetch: {
      egress: createEgress({ allowPrivateNetworks: config.egressAllowPrivateNetworks, ownOrigins: [new URL(config.publicUrl).origin] }),
      timeoutMs: config.statusListFetchTimeoutSeconds * 1000,
      maxBytes: config.statusListMaxBytes,
    },
    trust,
    cacheMaxSeconds: config.statusListCacheMaxSeconds,
    cacheMaxBytes: config.statusListCacheMaxBytes,
  });

/** The checker the configuration's settings describe; `trust` judges the lists' signers too. */
export const credentialStatusCheckerFromConfig = (
  config: StatusListSettings,
  trust: TrustVerifier,
  onFetch?: StatusListClientOptions['onFetch'],
): CredentialStatusChecker => createCredentialStatusChecker({ policy: config.statusListFailurePolicy, client: statusListClientFromConfig(config, trust, onFetch) });
