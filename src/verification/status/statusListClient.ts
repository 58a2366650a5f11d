// The verifier's Status List Tokens: fetched (src/verification/status/fetchStatusList.ts), verified
// (statusListToken.ts; a CWT when the answer's Content-Type says application/statuslist+cwt, else a
// JWT), their signer's chain judged by the same trust rules as credentials, and
// kept by `uri` so a busy verifier does not fetch per presentation. A token is relied on until its
// `ttl` has run out (counted from the fetch) or its `exp` passes, whichever is first, and never
// longer than STATUS_LIST_CACHE_MAX_SECONDS; however many presentations need a list, one fetch
// of it is in flight. Memory is bounded by STATUS_LIST_CACHE_MAX_BYTES over every list held, the
// least recently used going first. A failure is not kept: the next presentation tries again.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { TrustedChain, TrustVerifier } from '../../trust/issuerTrust.js';
import { STATUS_LIST_CWT_MEDIA_TYPE } from '../../statusList/statusList.js';
import { fetchStatusListToken, type FetchedToken, type FetchOptions, type StatusListForm } from './fetchStatusList.js';
import { verifyStatusListCwt, verifyStatusListToken, type TokenExpectations, type VerifiedStatusListToken } from './statusListToken.js';

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
  /**
   * The Status List Token at `uri`, verified and current at `now`, or why there is none; `preferred`
   * is the form asked for first (either is accepted, and the one held serves both).
   */
  get(uri: string, now: Date, preferred?: StatusListForm): Promise<Either<string, FetchedStatusList>>;
}

interface Held {
  readonly token: FetchedStatusList;
  readonly bytes: number;
}

/** The answer read as the form its Content-Type names; anything but the CWT's is read as a JWT. */
const verifyFetched = async (fetched: FetchedToken, expected: TokenExpectations): Promise<Either<string, VerifiedStatusListToken>> =>
  fetched.mediaType === STATUS_LIST_CWT_MEDIA_TYPE
    ? verifyStatusListCwt(fetched.body, expected)
    : verifyStatusListToken(Buffer.from(fetched.body).toString('utf8'), expected);

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

  const keep = (uri: string, token: FetchedStatusList, tokenLength: number): void => {
    forget(uri);
    const bytes = token.list.bytes.length + tokenLength;
    if (bytes > options.cacheMaxBytes) return;
    for (const [oldest] of held) {
      if (heldBytes + bytes <= options.cacheMaxBytes) break;
      forget(oldest);
    }
    held.set(uri, { token, bytes });
    heldBytes += bytes;
  };

  const load = async (uri: string, now: Date, preferred: StatusListForm): Promise<Either<string, FetchedStatusList>> => {
    const loaded = await fetchAndVerify(uri, now, preferred);
    options.onFetch?.(isLeft(loaded) ? 'rejected' : 'accepted');
    return loaded;
  };

  const fetchAndVerify = async (uri: string, now: Date, preferred: StatusListForm): Promise<Either<string, FetchedStatusList>> => {
    const fetched = await fetchStatusListToken(uri, options.fetch, preferred);
    if (isLeft(fetched)) return fetched;
    const verified = await verifyFetched(fetched.right, { uri, now, maxBytes: options.fetch.maxBytes });
    if (isLeft(verified)) return verified;
    const signer = await options.trust.verify(verified.right.chain, now);
    if (isLeft(signer)) return left(`signing certificate: ${signer.left.reason}`);
    if (signer.right.trust.supportTrustAnchor && signer.right.trust.isCertificateRevoked) return left('signing certificate is revoked');
    const fetchedAt = now.getTime();
    const lifetime = Math.min(verified.right.ttl ?? Infinity, options.cacheMaxSeconds) * 1000;
    const until = Math.min(fetchedAt + lifetime, verified.right.exp?.getTime() ?? Infinity);
    const token = { ...verified.right, signer: signer.right, until };
    keep(uri, token, fetched.right.body.length);
    return right(token);
  };

  return {
    get(uri, now, preferred = 'jwt') {
      const entry = held.get(uri);
      if (entry && now.getTime() < entry.token.until) {
        held.delete(uri);
        held.set(uri, entry);
        return Promise.resolve(right(entry.token));
      }
      const inFlight = pending.get(uri);
      if (inFlight) return inFlight;
      const started = load(uri, now, preferred).finally(() => pending.delete(uri));
      pending.set(uri, started);
      return started;
    },
  };
};
