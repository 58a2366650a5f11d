// One HTTP attempt of a delivery: POST the signed body and classify the answer. Any 2xx is
// success; anything else, a timeout or a connection failure is a failed attempt. Redirects are
// never followed (the URL was vetted, where it points to was not), and at most a few KiB of the
// answer is read, only so the connection can be reused.
// Callback URLs are the operator's configuration (CALLBACK_URL, `ops callbacks set`) or a tenant's
// setting whose address, if given literally, was checked public when it was set
// (src/resources/tenantSettings.ts); often an integrator's backend on a private network, so they
// do not go through the egress guard (src/egress/egress.ts) at delivery (docs/security.md).
import { performance } from 'node:perf_hooks';
import { MAX_RESPONSE_BYTES, parseRetryAfter, type AttemptOutcome } from '../http/outboundAttempt.js';


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
}

export const postCallback = async (request: PostRequest): Promise<AttemptOutcome> => {
  const started = performance.now();
  const elapsed = (): number => Math.round((performance.now() - started) * 10) / 10;
  const timeout = AbortSignal.timeout(request.timeoutMs);
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      body: request.body,
      headers: { 'content-type': 'application/json', 'user-agent': 'eudi-connector-callbacks', ...request.headers },
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
