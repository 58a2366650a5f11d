// Fetching a Status List Token from the `uri` a credential names (draft-ietf-oauth-status-list,
// "Status List Request"): GET with an `Accept` naming both forms, the preferred one first, one time limit for the
// whole exchange, the body bounded, and redirects followed by hand, at most three, to http(s)
// only (the draft lets clients follow them and warns about loops). Failures are reasons, never
// exceptions: what "unavailable" means is the caller's policy.
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { FetchFailure, readBounded } from '../../http/readBounded.js';
import { STATUS_LIST_CWT_MEDIA_TYPE, STATUS_LIST_MEDIA_TYPE } from '../../statusList/statusList.js';

const MAX_REDIRECTS = 3;

export interface FetchOptions {
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

const isHttp = (url: URL): boolean => url.protocol === 'http:' || url.protocol === 'https:';

const failureOf = (err: unknown, timeoutMs: number): string => {
  if (err instanceof FetchFailure) return err.message;
  return (err as Error).name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : 'could not be fetched';
};

/** Which form a verifier asks for first: the one its credential's own format uses. */
export type StatusListForm = 'jwt' | 'cwt';

const ACCEPT: Readonly<Record<StatusListForm, string>> = {
  jwt: `${STATUS_LIST_MEDIA_TYPE}, ${STATUS_LIST_CWT_MEDIA_TYPE};q=0.9`,
  cwt: `${STATUS_LIST_CWT_MEDIA_TYPE}, ${STATUS_LIST_MEDIA_TYPE};q=0.9`,
};

export interface FetchedToken {
  /** The answer's media type (its Content-Type without parameters, lower case), which says the form. */
  readonly mediaType: string;
  readonly body: Uint8Array;
}

/** The token as answered, or why it could not be had (completing "status list <uri> ..."). */
export const fetchStatusListToken = async (uri: string, options: FetchOptions, preferred: StatusListForm): Promise<Either<string, FetchedToken>> => {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return left('is not a URL');
  }
  if (!isHttp(url) || url.username !== '' || url.password !== '') return left('is not an http(s) URL without credentials');
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await fetch(url, { signal, redirect: 'manual', headers: { Accept: ACCEPT[preferred] } });
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location !== null) {
        await response.body?.cancel();
        if (redirects === MAX_REDIRECTS) return left(`redirected more than ${MAX_REDIRECTS} times`);
        const next = new URL(location, url);
        if (!isHttp(next)) return left('redirected to a URL that is not http(s)');
        url = next;
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        return left(`answered HTTP ${response.status}`);
      }
      const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      return right({ mediaType, body: await readBounded(response, options.maxBytes) });
    }
  } catch (err) {
    return left(failureOf(err, options.timeoutMs));
  }
};
