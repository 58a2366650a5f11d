// A resource API answer as a value: what a write produced, so it can be sent now and, under an
// Idempotency-Key, recorded and replayed later exactly.
import type { Context } from 'koa';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { Json } from '../eventstore/port.js';
import { PROBLEM_CONTENT_TYPE, type HttpError } from '../http/problem.js';

export interface Reply {
  readonly status: number;
  readonly body: Json;
  /** Response headers that belong to the answer (ETag, Location, Content-Type of a problem). */
  readonly headers: Readonly<Record<string, string>>;
}

export const sendReply = (ctx: Context, reply: Reply): void => {
  ctx.status = reply.status;
  ctx.body = reply.body;
  // After the body, which would otherwise pick the Content-Type.
  for (const [name, value] of Object.entries(reply.headers)) ctx.set(name, value);
};

export const problemReply = (err: HttpError): Reply => ({
  status: err.problem.status,
  body: JSON.parse(JSON.stringify(err.problem)) as Json,
  headers: { ...err.headers, 'Content-Type': PROBLEM_CONTENT_TYPE },
});

const RecordedReply = t.type({ status: t.number, body: t.unknown, headers: t.record(t.string, t.string) });

export const encodeReply = (reply: Reply): Json => ({ status: reply.status, body: reply.body, headers: reply.headers });

/** A reply recorded with encodeReply; the body was JSON when it was recorded. */
export const decodeReply = (recorded: Json): Reply => {
  const decoded = RecordedReply.decode(recorded);
  if (isLeft(decoded)) throw new Error('a recorded reply breaks its contract');
  return { ...decoded.right, body: decoded.right.body as Json };
};
