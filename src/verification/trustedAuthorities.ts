// DCQL `trusted_authorities` (OpenID4VP 1.0, 6.1.1), the same for every format: the query's
// authorities by type, and whether one of them vouches for a credential's issuer chain.
import { chainHasAuthorityKeyId } from '../trust/x509Chain.js';
import type { TrustedChain } from '../trust/issuerTrust.js';
import type { CredentialQuery } from './dcql.js';

export interface TrustedAuthorities {
  /** Of type `aki`: the issuer chain must carry one of these AuthorityKeyIdentifiers... */
  readonly trustedAuthorityKeyIds?: readonly string[];
  /** ...or, of type `etsi_tl`, a trusted service of one of these lists (or lists reached through them) must vouch for it. */
  readonly trustedListUrls?: readonly string[];
}

/** The query's `trusted_authorities` by type: aki key identifiers and etsi_tl list URLs. */
export const trustedAuthoritiesOf = (query: CredentialQuery): TrustedAuthorities => {
  const authorities = query.trusted_authorities;
  if (authorities === undefined) return {};
  const values = (type: string) => authorities.filter((a) => a.type === type).flatMap((a) => a.values);
  const keyIds = values('aki');
  const listUrls = values('etsi_tl');
  return { ...(keyIds.length > 0 ? { trustedAuthorityKeyIds: keyIds } : {}), ...(listUrls.length > 0 ? { trustedListUrls: listUrls } : {}) };
};

/** The credential satisfies the authorities when one of them vouches for its issuer. Returns why not, when it does not. */
export const unmetTrustedAuthorities = (requirements: TrustedAuthorities, trusted: TrustedChain): string | undefined => {
  const { trustedAuthorityKeyIds: keyIds, trustedListUrls: listUrls } = requirements;
  if (keyIds === undefined && listUrls === undefined) return undefined;
  if (keyIds && chainHasAuthorityKeyId(trusted.chain, keyIds)) return undefined;
  if (listUrls && listUrls.some((url) => trusted.trustedThrough?.has(url))) return undefined;
  return listUrls === undefined
    ? 'issuer chain has none of the AuthorityKeyIdentifiers in the query\'s trusted_authorities'
    : 'issuer is vouched for by none of the query\'s trusted_authorities (no trusted service of the etsi_tl lists, no aki match)';
};
