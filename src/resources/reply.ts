// A resource API answer as a value: what a write produced, so it can be sent now and, under an
// Idempotency-Key, recorded and replayed later exactly.
import type { RecordedReply } from '../../streams/idempotency.js';
import type { Json } from '../eventstore/port.js';
import { PROBLEM_CONTENT_TYPE, type HttpError } from '../http/problem.js';

export interface Reply {
  readonly status: number;
  readonly body: Json;
  /** Response headers that belong to the answer (ETag, Location, Content-Type of a problem). */
  readonly headers: Readonly<Record<string, string>>;
}

export const problemReply = (err: HttpError): Reply => ({
  status: err.problem.status,
  body: JSON.parse(JSON.stringify(err.problem)) as Json,
  headers: { ...err.headers, 'Content-Type': PROBLEM_CONTENT_TYPE },
});

/** The reply as its idempotency stream records it (sealed). */
export const recordedReply = (reply: Reply): RecordedReply => ({ status: reply.status, body: reply.body, headers: reply.headers });
