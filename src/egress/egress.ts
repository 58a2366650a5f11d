// Every outbound request to a URL that someone other than the operator chose (a credential's
// status list, a certificate's CRL distribution point, a DIDComm service endpoint, a did:web
// host) goes through here, so the connector cannot be made to reach into its own network:
//
// - the URL must be http(s) without credentials;
// - its host is resolved once, and every address it resolves to must be public
//   (publicAddress.ts); a literal address is judged as written, in whatever notation the URL
//   parser read it;
// - the socket connects to the very addresses checked: the request's `lookup` hands them over,
//   so no second resolution can answer otherwise (DNS rebinding);
// - a redirect is followed only when the caller asks, at most `maxRedirects` times, and each
//   hop is checked like the first;
// - one time limit covers every hop, body included, and at most `maxBytes` of a body are read.
//
// EGRESS_ALLOW_PRIVATE_NETWORKS=true (the policy's `allowPrivateNetworks`) lifts the address
// rule for closed networks and tests; everything else holds. The connector's own public origin
// (PUBLIC_URL: the operator chose it, and it is the listener every wallet reaches anyway) is
// exempt from the address rule too (`ownOrigins`), so a connector on a loopback PUBLIC_URL can
// check the status of the credentials it issued; a redirect from there is checked as usual.
//
// Operator-configured URLs (trusted list sources, callback URLs) do not come here: the operator
// chose them.
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { isPublicAddress } from './publicAddress.js';

export { isPublicAddress } from './publicAddress.js';

export interface EgressPolicy {
  /** EGRESS_ALLOW_PRIVATE_NETWORKS: any address may be reached (closed networks, tests). */
  readonly allowPrivateNetworks: boolean;
  /** Origins (`scheme://host:port`) the operator configured as the connector's own: any address allowed. */
  readonly ownOrigins?: readonly string[];
}

/** Whether the address rule applies to this URL under this policy. */
const addressRuleApplies = (url: URL, policy: EgressPolicy): boolean =>
  !policy.allowPrivateNetworks && !(policy.ownOrigins ?? []).includes(url.origin);

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Every address a host name resolves to. */
export type Resolve = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** Stand-ins for tests: a resolver instead of the system's, and which addresses count as public. */
export interface EgressHooks {
  readonly resolve?: Resolve;
  readonly isPublic?: (address: string) => boolean;
}

const systemResolve: Resolve = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

interface Bounds {
  readonly url: string | URL;
  readonly headers?: Readonly<Record<string, string>>;
  /** Covers every hop: resolving, connecting, the answer and its body. */
  readonly timeoutMs: number;
  /** The most of a body read; the rest is discarded and the answer says `truncated`. */
  readonly maxBytes: number;
  /** Stops the request early (a shutdown). */
  readonly signal?: AbortSignal;
}

export type EgressRequest =
  | (Bounds & {
      readonly method: 'GET';
      /** Redirects followed, each hop checked as the first; 0 (the default) answers the redirect itself. */
      readonly maxRedirects?: number;
    })
  | (Bounds & { readonly method: 'POST'; readonly body: string });

export interface EgressAnswer {
  /** Where the answer came from, after any redirects. */
  readonly url: URL;
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** At most `maxBytes` of the body. */
  readonly body: Buffer;
  /** The body was longer than `maxBytes` (or declared to be). */
  readonly truncated: boolean;
}

/**
 * Why no answer: `detail` completes "<url> ..." and never quotes what the target sent.
 * `refused`: the URL or an address it resolves to is not allowed, so nothing was sent.
 */
export type EgressFailure = {
  readonly _tag: 'EgressFailure';
  readonly kind: 'refused' | 'redirects' | 'timeout' | 'network';
  readonly detail: string;
};

const failure = (kind: EgressFailure['kind'], detail: string): EgressFailure => ({ _tag: 'EgressFailure', kind, detail });

export interface Egress {
  readonly policy: EgressPolicy;
  /** The answer, or why there is none. Throws only on the caller's programming errors. */
  request(request: EgressRequest): Promise<Either<EgressFailure, EgressAnswer>>;
}

const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

const checkUrlWith = (url: string | URL, policy: EgressPolicy, isPublic: (address: string) => boolean): Either<EgressFailure, URL> => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return left(failure('refused', 'is not a URL'));
  }
  if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.username !== '' || parsed.password !== '') {
    return left(failure('refused', 'is not an http(s) URL without credentials'));
  }
  if (addressRuleApplies(parsed, policy) && isIP(hostOf(parsed)) !== 0 && !isPublic(hostOf(parsed))) {
    return left(failure('refused', 'names a private or reserved address'));
  }
  return right(parsed);
};

/**
 * What can be checked of a URL without the network: http(s), no credentials, and, when its host
 * is an address, a public one. A host name is checked where it resolves (`request`).
 */
export const checkUrl = (url: string | URL, policy: EgressPolicy): Either<EgressFailure, URL> => checkUrlWith(url, policy, isPublicAddress);

/** A socket lookup that answers with the addresses already resolved and checked. */
const checkedLookup = (addresses: readonly ResolvedAddress[]): LookupFunction => (_hostname, options, callback) => {
  if (options.all) return (callback as unknown as (err: null, all: readonly ResolvedAddress[]) => void)(null, addresses);
  const first = addresses[0]!;
  callback(null, first.address, first.family);
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Rejects with the signal's reason once it aborts, so a resolution the resolver cannot cancel is still bounded. */
const bounded = <T>(promise: Promise<T>, signal: AbortSignal): Promise<T> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const abort = (): void => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });

const codeOf = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'error';
};

/** One exchange with the given addresses; rejects on a network failure or the signal. */
const exchange = (url: URL, addresses: readonly ResolvedAddress[], request: EgressRequest, signal: AbortSignal): Promise<EgressAnswer> =>
  new Promise((resolve, reject) => {
    const body = request.method === 'POST' ? request.body : undefined;
    const make = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = make(url, {
      method: request.method,
      headers: { 'user-agent': 'eudi-connector', ...request.headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
      signal,
      // A fresh connection for each exchange: a pooled socket would bypass the lookup below.
      agent: false,
      lookup: checkedLookup(addresses),
    });
    req.on('error', reject);
    req.on('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let read = 0;
      let settled = false;
      const done = (truncated: boolean): void => {
        if (settled) return;
        settled = true;
        resolve({ url, status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).subarray(0, request.maxBytes), truncated });
      };
      if (Number(response.headers['content-length'] ?? '0') > request.maxBytes) {
        response.destroy();
        return done(true);
      }
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        chunks.push(chunk);
        if (read > request.maxBytes) {
          response.destroy();
          done(true);
        }
      });
      response.on('end', () => done(false));
      // A body that breaks off (a reset, the time limit) is no answer.
      response.on('error', (err) => {
        if (settled) return;
        settled = true;
        reject(err);
      });
      response.on('close', () => {
        if (settled) return;
        settled = true;
        reject(Object.assign(new Error('the answer broke off'), { code: 'ECONNRESET' }));
      });
    });
    req.end(body);
  });

export const createEgress = (policy: EgressPolicy, hooks: EgressHooks = {}): Egress => {
  const { resolve = systemResolve, isPublic = isPublicAddress } = hooks;
  /** The addresses `url`'s host may be reached at, or why it may not. */
  const addressesOf = async (url: URL, signal: AbortSignal): Promise<Either<EgressFailure, readonly ResolvedAddress[]>> => {
    const host = hostOf(url);
    const family = isIP(host);
    if (family !== 0) return right([{ address: host, family: family === 6 ? 6 : 4 }]);
    let addresses: readonly ResolvedAddress[];
    try {
      addresses = await bounded(resolve(host), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      return left(failure('network', `could not be resolved (${codeOf(err)})`));
    }
    if (addresses.length === 0) return left(failure('network', 'could not be resolved (no address)'));
    if (addressRuleApplies(url, policy) && !addresses.every((a) => isPublic(a.address))) {
      return left(failure('refused', 'resolves to a private or reserved address'));
    }
    return right(addresses);
  };

  return {
    policy,
    async request(request) {
      const deadline = AbortSignal.timeout(request.timeoutMs);
      const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
      const maxRedirects = request.method === 'GET' ? (request.maxRedirects ?? 0) : 0;
      let next: string | URL = request.url;
      try {
        for (let redirects = 0; ; redirects++) {
          // A hop after a redirect is refused for what it is, said as where the redirect led.
          const refused = (why: EgressFailure): Either<EgressFailure, never> =>
            left(redirects === 0 ? why : failure(why.kind, `was redirected to a URL that ${why.detail}`));
          const checked = checkUrlWith(next, policy, isPublic);
          if (checked._tag === 'Left') return refused(checked.left);
          const url = checked.right;
          const addresses = await addressesOf(url, signal);
          if (addresses._tag === 'Left') return refused(addresses.left);
          const answer = await exchange(url, addresses.right, request, signal);
          const location = answer.headers.location;
          if (maxRedirects === 0 || !REDIRECTS.has(answer.status) || location === undefined) return right(answer);
          if (redirects === maxRedirects) return left(failure('redirects', `redirected more than ${maxRedirects} times`));
          // Relative to the hop that answered; one that does not parse is refused as the next hop.
          next = URL.canParse(location, url.href) ? new URL(location, url) : location;
        }
      } catch (err) {
        if (deadline.aborted) return left(failure('timeout', `timed out after ${request.timeoutMs} ms`));
        if (request.signal?.aborted) return left(failure('network', 'was interrupted'));
        return left(failure('network', `could not be reached (${codeOf(err)})`));
      }
    },
  };
};
