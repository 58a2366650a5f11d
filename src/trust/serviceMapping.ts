// What a trust service's type and status mean: for a presented credential, the spec's
// `credentialCategory`, `qualifiedStatus` and `trustFailureReason`; for a wallet attestation, a
// wallet provider (TS 119 602's wallet providers list, src/trust/walletProviderTrust.ts).
// docs/trusted-lists.md carries this table; change both together.
import type { ListFormat, StatusMap, StatusMeaning } from '../config/trust.js';

export type CredentialCategory = 'PID' | 'QEAA' | 'PUB_EAA' | 'NON_QUALIFIED_EAA';

/** What a listed service vouches for: the issuers of credentials of a category, or wallet providers. */
export type ServiceCategory = CredentialCategory | 'WALLET_PROVIDER';

export const isCredentialCategory = (category: ServiceCategory): category is CredentialCategory => category !== 'WALLET_PROVIDER';

export type TrustFailureReason = 'issuer_not_found' | 'issuer_withdrawn' | 'issuer_suspended' | 'trust_list_unavailable';

// Services of other types (CA/QC, TSA, OCSP, a LoTE's Revocation services...) are parsed but give
// no category: a credential matched only through them is not trusted as a PID or an attestation,
// nor a wallet attestation as a wallet provider's.
const SERVICE_TYPES: Readonly<Record<string, ServiceCategory>> = {
  'http://uri.etsi.org/19602/SvcType/PID/Issuance': 'PID',
  'http://uri.etsi.org/TrstSvc/Svctype/EAA/Q': 'QEAA',
  'http://uri.etsi.org/TrstSvc/Svctype/EAA/Pub-EAA': 'PUB_EAA',
  'http://uri.etsi.org/19602/SvcType/PubEAA/Issuance': 'PUB_EAA',
  'http://uri.etsi.org/TrstSvc/Svctype/EAA': 'NON_QUALIFIED_EAA',
  // TS 119 602 V1.1.1, the wallet providers list (LoTEType .../19602/LoTEType/EUWalletProvidersList).
  'http://uri.etsi.org/19602/SvcType/WalletSolution/Issuance': 'WALLET_PROVIDER',
};

export const categoryOf = (serviceType: string): ServiceCategory | undefined =>
  Object.hasOwn(SERVICE_TYPES, serviceType) ? SERVICE_TYPES[serviceType] : undefined;

/** Only a qualified service type makes a qualified entry. */
export const isQualified = (category: CredentialCategory | undefined): boolean => category === 'QEAA';

// TS 119 612 statuses, in the current form and the older TS 102 231 one.
const TSL_STATUS = /^http:\/\/uri\.etsi\.org\/TrstSvc\/(?:TrustedList\/)?Svcstatus\/([A-Za-z]+)$/;
const TSL_MEANINGS: Readonly<Record<string, StatusMeaning>> = {
  granted: 'trusted',
  recognisedatnationallevel: 'trusted',
  withdrawn: 'withdrawn',
  deprecatedatnationallevel: 'withdrawn',
  suspended: 'suspended',
};
// TS 119 602 lists name their statuses per list type: .../19602/PubEAAProvidersList/SvcStatus/notified,
// .../19602/WalletProvidersList/SvcStatus/withdrawn.
const LOTE_STATUS = /^http:\/\/uri\.etsi\.org\/19602\/[A-Za-z]+\/SvcStatus\/([A-Za-z]+)$/;
const LOTE_MEANINGS: Readonly<Record<string, StatusMeaning>> = { notified: 'trusted', withdrawn: 'withdrawn' };

const lookup = (table: Readonly<Record<string, StatusMeaning>>, name: string | undefined): StatusMeaning | undefined =>
  name !== undefined && Object.hasOwn(table, name) ? table[name] : undefined;

/**
 * The meaning of a service status, or undefined when it has none we know (the service is then
 * not used, as if unlisted). A LoTE service without a status is trusted: in the EU PID providers
 * list being listed is the status. The source's own map is consulted first.
 */
export const meaningOf = (status: string | undefined, format: ListFormat, statusMap: StatusMap | undefined): StatusMeaning | undefined => {
  if (status === undefined) return format === 'lote' ? 'trusted' : undefined;
  if (statusMap && Object.hasOwn(statusMap, status)) return statusMap[status];
  return lookup(TSL_MEANINGS, TSL_STATUS.exec(status)?.[1]) ?? lookup(LOTE_MEANINGS, LOTE_STATUS.exec(status)?.[1]);
};

export const failureReasonOf = (meaning: Exclude<StatusMeaning, 'trusted'>): TrustFailureReason =>
  meaning === 'withdrawn' ? 'issuer_withdrawn' : 'issuer_suspended';
