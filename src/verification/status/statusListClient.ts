// The verifier's Status List Tokens: fetched (src/verification/status/fetchStatusList.ts), verified
// (statusListToken.ts), their signer's chain judged by the same trust rules as credentials, and
// kept by `uri` so a busy verifier does not fetch per presentation. A token is relied on until its
// `ttl` has run out (counted from the fetch) or its `exp` passes, whichever is first, and never
// longer than STATUS_LIST_CACHE_MAX_SECONDS; however many presentations need a list, one fetch
// of it is in flight. Memory is bounded by STATUS_LIST_CACHE_MAX_BYTES over every list held, the
// least recently used going first. A failure is not kept: the next presentation tries again.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { TrustedChain, TrustVerifier } from '../../trust/issuerTrust.js';
import { fetchStatusListToken, type FetchOptions } from './fetchStatusList.js';
import { verifyStatusListToken, type VerifiedStatusListToken } from './statusListToken.js';

export interface FetchedStatusList extends VerifiedStatusListToken {
  /** The signer's chain as the trust verifier judged it (valid; anchored and not revoked, when anchoring is on). */
  readonly signer: TrustedChain;
  /** Epoch milliseconds until which the token is relied on. */
  readonly until: number;
}

export interface StatusListClientOptions {
  readonly fetch: FetchOptions;
  readonly trust: TrustVerifier;
  readonly cacheMaxSeconds: number;
  readonly cacheMaxBytes: number;
  /** Told of every fetch and whether its token was relied on (metrics). */
  readonly onFetch?: (outcome: 'accepted' | 'rejected') => void;
}

export interface StatusListClient {
  /** The Status List Token at `uri`, verified and current at `now`, or why there is none. */
  get(uri: string, now: Date): Promise<Either<string, FetchedStatusList>>;
}

interface Held {
  readonly token: FetchedStatusList;
  readonly bytes: number;
}

export const createStatusListClient = (options: StatusListClientOptions): StatusListClient => {
  // Insertion order is recency: a hit moves its entry to the end.
  const held = new Map<string, Held>();
  const pending = new Map<string, Promise<Either<string, FetchedStatusList>>>();
  let heldBytes = 0;

  const forget = (uri: string): void => {
    const entry = held.get(uri);
    if (!entry) return;
    held.delete(uri);
    heldBytes -= entry.bytes;
  };

  const keep = (uri: string, token: FetchedStatusList, jwtLength: number): void => {
    forget(uri);
    const bytes = token.list.bytes.length + jwtLength;
    if (bytes > options.cacheMaxBytes) return;
    for (const [oldest] of held) {
      if (heldBytes + bytes <= options.cacheMaxBytes) break;
      forget(oldest);
    }
    held.set(uri, { token, bytes });
    heldBytes += bytes;
  };

  const load = async (uri: string, now: Date): Promise<Either<string, FetchedStatusList>> => {
    const loaded = await fetchAndVerify(uri, now);
    options.onFetch?.(isLeft(loaded) ? 'rejected' : 'accepted');
    return loaded;
  };

  const fetchAndVerify = async (uri: string, now: Date): Promise<Either<string, FetchedStatusList>> => {
    const jwt = await fetchStatusListToken(uri, options.fetch);
    if (isLeft(jwt)) return jwt;
    const verified = await verifyStatusListToken(jwt.right, { uri, now, maxBytes: options.fetch.maxBytes });
    if (isLeft(verified)) return verified;
    const signer = await options.trust.verify(verified.right.chain, now);
    if (isLeft(signer)) return left(`signing certificate: ${signer.left.reason}`);
    if (signer.right.trust.supportTrustAnchor && signer.right.trust.isCertificateRevoked) return left('signing certificate is revoked');
    const fetchedAt = now.getTime();
    const lifetime = Math.min(verified.right.ttl ?? Infinity, options.cacheMaxSeconds) * 1000;
    const until = Math.min(fetchedAt + lifetime, verified.right.exp?.getTime() ?? Infinity);
    const token = { ...verified.right, signer: signer.right, until };
    keep(uri, token, jwt.right.length);
    return right(token);
  };

  return {
    get(uri, now) {
      const entry = held.get(uri);
      if (entry && now.getTime() < entry.token.until) {
        held.delete(uri);
        held.set(uri, entry);
        return Promise.resolve(right(entry.token));
      }
      const inFlight = pending.get(uri);
      if (inFlight) return inFlight;
      const started = load(uri, now).finally(() => pending.delete(uri));
      pending.set(uri, started);
      return started;
    },
  };
};
