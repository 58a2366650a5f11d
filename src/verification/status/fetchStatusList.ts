// Fetching a Status List Token from the `uri` a credential names (draft-ietf-oauth-status-list,
// "Status List Request"): GET with an `Accept` naming both forms, the preferred one first, through
// the egress guard (the uri is the credential's, not the operator's: src/egress/egress.ts), one
// time limit for the whole exchange, the body bounded, and redirects followed, at most three, each
// hop checked like the first (the draft lets clients follow them and warns about loops). Failures
// are reasons, never exceptions: what "unavailable" means is the caller's policy.
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import type { Egress } from '../../egress/egress.js';
import { STATUS_LIST_CWT_MEDIA_TYPE, STATUS_LIST_MEDIA_TYPE } from '../../statusList/statusList.js';

const MAX_REDIRECTS = 3;

export interface FetchOptions {
  readonly egress: Egress;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

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
  const answer = await options.egress.request({
    method: 'GET',
    url: uri,
    headers: { accept: ACCEPT[preferred] },
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
    maxRedirects: MAX_REDIRECTS,
  });
  if (answer._tag === 'Left') return left(answer.left.detail);
  const { status, headers, body, truncated } = answer.right;
  if (status < 200 || status > 299) return left(`answered HTTP ${status}`);
  if (truncated) return left(`response larger than ${options.maxBytes} bytes`);
  const mediaType = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return right({ mediaType, body });
};
