// One GET of a document the trust decisions depend on (a CRL, a trusted list), bounded in every
// way a remote server could abuse: the time limit covers the body too, the size cap is enforced
// while reading (a declared Content-Length over it is refused before), and redirects are
// reported, never followed: a trust source moves by reconfiguration, and a redirect could lead
// anywhere.

export interface FetchBounds {
  /** Covers connecting, headers and the whole body. */
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/** Why a fetch produced no document, worded to follow the URL ("<url> timed out after 30000 ms"). */
export class FetchFailure extends Error {}

const readBounded = async (response: Response, maxBytes: number): Promise<Uint8Array> => {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new FetchFailure(`response larger than ${maxBytes} bytes`);
  }
  if (!response.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new FetchFailure(`response larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
};

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
