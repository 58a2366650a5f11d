// Which wallet providers a wallet attestation may come from (OpenID4VCI 1.0 Appendix E, HAIP 1.0
// section 4): the attestation's x5c chain (validated, leaf first) must end at, or be issued by,
//  - a certificate of a WALLET_PROVIDER service (TS 119 602 wallet providers list, service type
//    .../19602/SvcType/WalletSolution/Issuance) in good standing now, in a list that may vouch
//    (within the staleness window: src/trust/matching.ts, as for credential issuers), or
//  - a WALLET_PROVIDER_TRUST_ANCHORS certificate.
// A list that says the provider is withdrawn or suspended wins over the anchors, as on the
// verifier side; so does a list that cannot vouch (stale, or not fetched yet) for a provider no
// anchor knows: fail closed, with the reason.
import type { Either } from 'fp-ts/lib/Either.js';
import { left, right } from 'fp-ts/lib/Either.js';
import type { x509 } from '../crypto/x509.js';
import { resolveService, type TrustSnapshot } from './matching.js';
import type { ServiceCategory } from './serviceMapping.js';
import { findTrustAnchor } from './x509Chain.js';

type Certificate = x509.X509Certificate;

export interface WalletProviderTrust {
  /** The certificate that anchors `chain` at a trusted wallet provider, or why none does. */
  anchorOf(chain: readonly Certificate[], now: Date): Promise<Either<string, Certificate>>;
}

const isWalletProvider = (category: ServiceCategory): category is 'WALLET_PROVIDER' => category === 'WALLET_PROVIDER';

/** `lists`: the trusted lists held (lotl mode), undefined when the anchors are the only source. */
export const walletProviderTrust = (anchors: readonly Certificate[], lists: { snapshot(): TrustSnapshot } | undefined): WalletProviderTrust => ({
  async anchorOf(chain, now) {
    const resolution = lists === undefined ? undefined : await resolveService(lists.snapshot(), chain, now, isWalletProvider);
    const match = resolution?.match;
    if (resolution?.outcome === 'trusted' && match) return right(match.certificate);
    if (match && (resolution.outcome === 'withdrawn' || resolution.outcome === 'suspended')) {
      return left(`The wallet provider is ${resolution.outcome}: service "${match.service.serviceName}" of ${match.service.providerName || 'a provider'} in ${match.list.url}.`);
    }
    const anchor = await findTrustAnchor(chain, anchors, now);
    if (anchor !== undefined) return right(anchor);
    if (resolution?.outcome === 'unavailable') {
      return left('The wallet provider cannot be checked: a trusted list of wallet providers is unavailable or past its staleness window.');
    }
    return left('The wallet attestation is not from a trusted wallet provider.');
  },
});
