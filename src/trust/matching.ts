// Which trust service, if any, vouches for a certificate chain (a presented credential's issuer,
// or a wallet attestation's wallet provider), and what that means: the outcome, the category, and
// the list versions that decided it.
//
// Rules (docs/trusted-lists.md explains them):
// - only services whose type gives a category the caller asks for count: a credential's issuer
//   any credential category (a PID, by `vct`, only through a PID service), a wallet provider only
//   WALLET_PROVIDER;
// - a service's status is the one in force at `now` (the current status, or the history
//   instance that applied then); a status with no known meaning leaves the service unused;
// - a list older than the staleness window cannot vouch: its issuers are `unavailable`, and so is
//   an issuer found nowhere while any list expected is unavailable (it may be in that one);
// - among several matches: trusted before suspended before withdrawn.
import type { x509 } from '../crypto/x509.js';
import type { StatusMeaning } from '../config/trust.js';
import { isCredentialCategory, type CredentialCategory, type ServiceCategory } from './serviceMapping.js';
import type { ChainMatch, IndexedPeriod, ListEntry, SnapshotIndex } from './snapshotIndex.js';

/** How current a list's data is, for the staleness flags. */
export interface Freshness {
  /** Within the staleness window (with its LoTL): the list may vouch. */
  readonly usable: boolean;
  readonly cachedFallback: boolean;
  readonly pastNextUpdate: boolean;
  /** When the data in use was fetched (the older of the list and its LoTL). */
  readonly fetchedAt: Date;
}

/** The trusted lists in use at one moment. */
export interface TrustSnapshot {
  readonly index: SnapshotIndex;
  /** Lists expected (configured, or pointed to by a recorded LoTL) with no version on record. */
  readonly missing: readonly string[];
  freshness(list: ListEntry, now: Date): Freshness;
  /** The list and the LoTL that pinned its signers. */
  lineage(list: ListEntry): readonly ListEntry[];
}

export type Outcome = StatusMeaning | 'not_found' | 'unavailable';

export interface Resolution<C extends ServiceCategory = CredentialCategory> {
  readonly outcome: Outcome;
  /** The service that decided; undefined when none did. */
  readonly match: ChainMatch | undefined;
  readonly category: C | undefined;
  /** The list versions the decision rests on (all lists when no service decided). */
  readonly decidedBy: readonly ListEntry[];
  /** URLs of the lists (and their LoTLs) through which a usable, trusted service vouches. */
  readonly trustedThrough: ReadonlySet<string>;
}

const meaningAt = (periods: readonly IndexedPeriod[], now: number): StatusMeaning | undefined =>
  periods.find((period) => period.from <= now)?.meaning;

const RANK: Readonly<Record<Outcome, number>> = { trusted: 0, suspended: 1, withdrawn: 2, unavailable: 3, not_found: 4 };

interface Candidate<C extends ServiceCategory> {
  readonly match: ChainMatch;
  readonly category: C;
  readonly outcome: Outcome;
}

/** The service of a category `counts` that vouches for `chain` (validated, leaf first), and how. */
export const resolveService = async <C extends ServiceCategory>(
  snapshot: TrustSnapshot,
  chain: readonly x509.X509Certificate[],
  now: Date,
  counts: (category: ServiceCategory) => category is C,
): Promise<Resolution<C>> => {
  const candidates: Candidate<C>[] = [];
  for (const match of await snapshot.index.matches(chain, now)) {
    const { category } = match;
    if (category === undefined || !counts(category)) continue;
    const meaning = meaningAt(match.periods, now.getTime());
    if (meaning === undefined) continue;
    const usable = snapshot.lineage(match.list).every((list) => snapshot.freshness(list, now).usable);
    candidates.push({ match, category, outcome: usable ? meaning : 'unavailable' });
  }
  const trustedThrough = new Set(
    candidates.filter((c) => c.outcome === 'trusted').flatMap((c) => snapshot.lineage(c.match.list).map((list) => list.url)),
  );
  const best = candidates.sort((a, b) => RANK[a.outcome] - RANK[b.outcome])[0];
  if (best) {
    return { outcome: best.outcome, match: best.match, category: best.category, decidedBy: snapshot.lineage(best.match.list), trustedThrough };
  }
  const lists = snapshot.index.lists;
  const anyUnavailable = snapshot.missing.length > 0 || lists.some((list) => !snapshot.freshness(list, now).usable);
  return { outcome: anyUnavailable ? 'unavailable' : 'not_found', match: undefined, category: undefined, decidedBy: lists, trustedThrough };
};

/** The issuer of a presented credential: any credential category, a PID only through a PID service. */
export const resolveIssuer = (
  snapshot: TrustSnapshot,
  chain: readonly x509.X509Certificate[],
  now: Date,
  credential: { readonly isPid: boolean },
): Promise<Resolution> =>
  resolveService(snapshot, chain, now, (category): category is CredentialCategory => isCredentialCategory(category) && (!credential.isPid || category === 'PID'));
