// One HTTP attempt of a delivery: POST the signed body and classify the answer. Any 2xx is
// success; anything else, a timeout or a connection failure is a failed attempt. Redirects are
// never followed (the URL was vetted, where it points to was not), and at most a few KiB of the
// answer is read, only so the connection can be reused.
// A callback URL the operator chose (CALLBACK_URL, `ops callbacks set`), often an integrator's
// backend on a private network, is posted to as configured. One a tenant set itself
// (`PUT /settings`) is a URL others chose: it goes through the egress guard (src/egress/egress.ts)
// at every attempt, its host resolved and every address judged, so a tenant cannot make the
// connector reach into its own network (docs/security.md).
import { performance } from 'node:perf_hooks';
import type { Egress } from '../egress/egress.js';
import { attemptOfEgress, MAX_RESPONSE_BYTES, parseRetryAfter, type AttemptOutcome } from '../http/outboundAttempt.js';


const drain = async (response: Response): Promise<void> => {
  const reader = response.body?.getReader();
  if (!reader) return;
  let read = 0;
  try {
    while (read <= MAX_RESPONSE_BYTES) {
      const chunk = await reader.read();
      if (chunk.done) return;
      read += chunk.value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The status decided the outcome; a body that breaks off changes nothing.
  }
};

const causeCode = (err: unknown): string => {
  const cause = (err as { cause?: { code?: unknown; name?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.name === 'string') return cause.name;
  return err instanceof Error ? err.name : 'error';
};

export interface PostRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Aborted when the service shuts down. */
  readonly shutdown: AbortSignal;
  readonly now: () => Date;
  /** For a URL the tenant chose: the guard every address it reaches is judged by. */
  readonly egress?: Egress;
}

export const postCallback = async (request: PostRequest): Promise<AttemptOutcome> => {
  const started = performance.now();
  const elapsed = (): number => Math.round((performance.now() - started) * 10) / 10;
  const headers = { 'content-type': 'application/json', 'user-agent': 'eudi-connector-callbacks', ...request.headers };
  if (request.egress) {
    const answer = await request.egress.request({
      method: 'POST',
      url: request.url,
      headers,
      body: request.body,
      timeoutMs: request.timeoutMs,
      maxBytes: MAX_RESPONSE_BYTES,
      signal: request.shutdown,
    });
    return attemptOfEgress(answer, { target: 'the callback URL', timeoutMs: request.timeoutMs, shutdown: request.shutdown, durationMs: elapsed(), now: request.now() });
  }
  const timeout = AbortSignal.timeout(request.timeoutMs);
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      body: request.body,
      headers,
      redirect: 'manual',
      signal: AbortSignal.any([timeout, request.shutdown]),
    });
    await drain(response);
    const httpStatus = response.status;
    if (httpStatus >= 200 && httpStatus <= 299) return { ok: true, httpStatus, durationMs: elapsed() };
    return {
      ok: false,
      reason: 'http_status',
      httpStatus: httpStatus === 0 ? null : httpStatus,
      detail: httpStatus >= 300 && httpStatus <= 399 ? 'redirect not followed' : `HTTP ${httpStatus}`,
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), request.now()),
      durationMs: elapsed(),
    };
  } catch (err) {
    const timedOut = timeout.aborted && !request.shutdown.aborted;
    return {
      ok: false,
      reason: timedOut ? 'timeout' : 'network',
      httpStatus: null,
      detail: timedOut ? `no answer within ${request.timeoutMs} ms` : request.shutdown.aborted ? 'interrupted by shutdown' : causeCode(err),
      retryAfterMs: undefined,
      durationMs: elapsed(),
    };
  }
};
