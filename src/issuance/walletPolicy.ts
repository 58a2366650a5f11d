// The wallet attestation policy of an offer's tenant (WALLET_ATTESTATION, and the wallet providers
// WALLET_PROVIDER_TRUST_ANCHORS trusts beside the lists): its settings' (src/tenantIdentity/
// settings.ts), else the deployment's. The wallet-facing steps know the offer before they check a
// wallet: a pre-authorized or authorization code names it, a pushed request carries it. A tenant
// with anchors of its own gets its WalletProviderTrust at its first such request, kept until its
// settings' revision changes; the trusted lists stay the deployment's.
import { findOfferTenant } from '../../projections/offers.js';
import type { SqlReader } from '../../projections/projection.js';
import type { Config } from '../config/config.js';
import type { TenantSettings } from '../tenantIdentity/settings.js';
import { trustAnchorCertificates } from '../trust/trustAnchors.js';
import { walletProviderTrust, type WalletProviderTrust } from '../trust/walletProviderTrust.js';
import type { TrustSnapshot } from '../trust/matching.js';

export interface WalletPolicy {
  /** Whether pre-authorized token requests need a wallet attestation. */
  readonly walletAttestation: Config['walletAttestation'];
  readonly walletProviders: WalletProviderTrust;
}

/** The policy of the offer's tenant; the deployment's for an offer not (yet) known. */
export type WalletPolicyOf = (offerId: string | undefined) => WalletPolicy;

export const walletPolicies = (options: {
  readonly db: () => SqlReader;
  readonly settings: TenantSettings;
  readonly config: Pick<Config, 'walletAttestation' | 'walletProviderTrustAnchors'>;
  readonly lists: { snapshot(): TrustSnapshot } | undefined;
  /** The deployment's: WALLET_PROVIDER_TRUST_ANCHORS and the lists. */
  readonly walletProviders: WalletProviderTrust;
}): WalletPolicyOf => {
  const { config, lists } = options;
  const deployment: WalletPolicy = { walletAttestation: config.walletAttestation, walletProviders: options.walletProviders };
  const anchorsOf = (anchors: readonly string[]): string => anchors.join(',');
  const views = new Map<string, { readonly revision: number; readonly walletProviders: WalletProviderTrust }>();
  return (offerId) => {
    const tenantId = offerId === undefined ? undefined : findOfferTenant(options.db(), offerId);
    if (tenantId === undefined) return deployment;
    const settings = options.settings.of(tenantId);
    if (anchorsOf(settings.walletProviderTrustAnchors) === anchorsOf(config.walletProviderTrustAnchors)) {
      views.delete(tenantId);
      return { walletAttestation: settings.walletAttestation, walletProviders: deployment.walletProviders };
    }
    let held = views.get(tenantId);
    if (held?.revision !== settings.revision) {
      held = { revision: settings.revision, walletProviders: walletProviderTrust(trustAnchorCertificates(settings.walletProviderTrustAnchors), lists) };
      views.set(tenantId, held);
    }
    return { walletAttestation: settings.walletAttestation, walletProviders: held.walletProviders };
  };
};
