// One GET of a trusted list (a source the operator configured, or one its LoTL points to), bounded
// in every way a remote server could abuse: the time limit covers the body too, the size cap is
// enforced while reading (a declared Content-Length over it is refused before), and redirects are
// reported, never followed: a trust source moves by reconfiguration, and a redirect could lead
// anywhere. URLs someone else chose go through the egress guard instead (src/egress/egress.ts).
import { FetchFailure, readBounded } from '../http/readBounded.js';

export interface FetchBounds {
  /** Covers connecting, headers and the whole body. */
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

const failureOf = (err: unknown, timeoutMs: number, doing: string): FetchFailure =>
  err instanceof FetchFailure ? err : new FetchFailure((err as Error).name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : `could not be ${doing}`);

/** The body of `url`, or a FetchFailure saying why not. */
export const fetchBounded = async (url: string, bounds: FetchBounds): Promise<Uint8Array> => {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(bounds.timeoutMs), redirect: 'manual' });
  } catch (err) {
    throw failureOf(err, bounds.timeoutMs, 'fetched');
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new FetchFailure(`answered HTTP ${response.status} (redirects are not followed)`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new FetchFailure(`answered HTTP ${response.status}`);
  }
  try {
    return await readBounded(response, bounds.maxBytes);
  } catch (err) {
    throw failureOf(err, bounds.timeoutMs, 'read');
  }
};
