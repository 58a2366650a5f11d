// Idempotency-Key on the resource API's writes. Keys are claimed through the event store (the
// `idempotency` streams), not process memory, so they hold across instances over one store: of
// two requests claiming one key at the same moment, one appends its claim and the other sees it.
import { createHash, randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import { idempotency, idempotencyStream, replyOwner, type IdempotencyEvent, type IdempotencyState } from '../../streams/idempotency.js';
import { appendEvents, loadStream } from '../eventstore/handle.js';
import type { ExpectedRevision, Json } from '../eventstore/port.js';
import { conflict, HttpError, invalidRequest, isHttpError, unprocessable } from '../http/problem.js';
import { requestIdOf } from '../log.js';
import { principalOf } from '../tenancy/authenticate.js';
import type { ServiceContext } from '../feature.js';
import { decodeReply, encodeReply, problemReply, sendReply, type Reply } from './reply.js';

const KEY = /^[a-zA-Z0-9-]{32,256}$/;
/** A claim without a reply after this long belongs to a request that died: the key may be retried. */
export const CLAIM_LEASE_MS = 60 * 1000;
const PURPOSE = 'idempotent-reply';

/** JSON with members sorted, so member order does not make two requests different. */
const canonical = (value: Json | undefined): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as { [key: string]: Json | undefined }).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export const keyHashOf = (tenantId: string, key: string): string => sha256(`${tenantId}\n${key}`);

/** What makes two requests "the same": method, path with query, If-Match and the decoded body. */
export const fingerprintOf = (method: string, url: string, ifMatch: string, request: Json): string =>
  sha256(canonical([method, url, ifMatch, request]));

type Decision =
  | { readonly _tag: 'claim'; readonly expected: ExpectedRevision; readonly shred?: string }
  | { readonly _tag: 'replay'; readonly state: Extract<IdempotencyState, { status: 'done' }> };

const decide = (state: IdempotencyState, expected: ExpectedRevision, fingerprint: string, now: number): Decision => {
  if (state.status === 'free') return { _tag: 'claim', expected };
  const expired = Date.parse(state.expiresAt) <= now;
  if (expired) return { _tag: 'claim', expected, shred: state.claimId };
  if (state.fingerprint !== fingerprint) {
    throw new HttpError(unprocessable('This Idempotency-Key was used for a different request.', [{ location: 'header.idempotency-key', message: 'used for a different request', value: undefined }]));
  }
  if (state.status === 'done') return { _tag: 'replay', state };
  if (Date.parse(state.claimedAt) + CLAIM_LEASE_MS <= now) return { _tag: 'claim', expected };
  throw inProgress();
};

/** Claims lost to other writers before the request is told another one holds the key. */
const CLAIM_ATTEMPTS = 3;

const inProgress = (): HttpError => new HttpError(conflict('A request with this Idempotency-Key is still being processed; retry later.'));

/**
 * Destroys the reply of an expired generation and records it, which frees the key. Destroying
 * first: whatever happens next, the reply is gone. Nothing is recorded when the stream has moved
 * on to another generation (whose claim destroyed this one's key) or another instance recorded
 * it first; destroying again is a no-op.
 */
export const shredReply = async (deps: Pick<ServiceContext, 'store' | 'dataKeys'>, stream: string, claimId: string, at: Date): Promise<void> => {
  await deps.dataKeys.destroy(replyOwner(claimId));
  const loaded = await loadStream(deps.store, idempotency, stream);
  if (isLeft(loaded)) throw new Error(`idempotency stream unreadable: ${loaded.left._tag}`);
  const { state, expectedRevision } = loaded.right;
  if (state.status === 'free' || state.claimId !== claimId) return;
  await appendEvents(deps.store, stream, [{ type: 'IdempotentReplyShredded', data: { claimId, shreddedAt: at.toISOString() } }], expectedRevision);
};

/**
 * The `idempotent` of ResourcesContext: without a key, runs the write; with one, replays the
 * recorded reply of the same request, refuses a different request (422) or one racing the first
 * (409), or claims the key, runs the write and records its reply.
 */
export const idempotentWrites = (deps: ServiceContext, now: () => Date) => {
  const lifetimeMs = deps.config.idempotencyKeyTtlSeconds * 1000;
  return async (ctx: Context, request: Json, execute: () => Promise<Reply>): Promise<void> => {
    const key = ctx.get('Idempotency-Key');
    if (key === '') return sendReply(ctx, await execute());
    if (!KEY.test(key)) {
      throw new HttpError(invalidRequest('Idempotency-Key must be 32-256 characters of a-z, A-Z, 0-9 and -.', [{ location: 'header.idempotency-key', message: 'expected [a-zA-Z0-9-]{32,256}', value: key }]));
    }
    const stream = idempotencyStream(keyHashOf(principalOf(ctx).tenantId, key));
    const fingerprint = fingerprintOf(ctx.method, ctx.url, ctx.get('If-Match'), request);
    const at = now();
    const claimId = randomUUID();
    const append = (events: readonly IdempotencyEvent[], expected: ExpectedRevision) =>
      appendEvents(deps.store, stream, events, expected);
    let claimRevision: number | undefined;
    // A lost claim is decided again on what beat it: another request's claim is a 409, but the
    // expiry scheduler recording a shred only freed the key further.
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS && claimRevision === undefined; attempt++) {
      const loaded = await loadStream(deps.store, idempotency, stream);
      if (isLeft(loaded)) throw new Error(`idempotency stream unreadable: ${loaded.left._tag}`);
      let decision = decide(loaded.right.state, loaded.right.expectedRevision, fingerprint, at.getTime());
      if (decision._tag === 'replay') {
        const dataKey = await deps.dataKeys.find(replyOwner(decision.state.claimId));
        if (dataKey) {
          ctx.set('Idempotent-Replayed', 'true');
          return sendReply(ctx, decodeReply(dataKey.open(decision.state.reply, PURPOSE)));
        }
        // Shredded by an instance whose clock is ahead of ours: for it the key has expired.
        decision = { _tag: 'claim', expected: loaded.right.expectedRevision };
      }
      if (decision.shred) await deps.dataKeys.destroy(replyOwner(decision.shred));
      const claimed = await append(
        [{ type: 'IdempotencyKeyClaimed', data: { claimId, fingerprint, claimedAt: at.toISOString(), expiresAt: new Date(at.getTime() + lifetimeMs).toISOString() } }],
        decision.expected,
      );
      if (!isLeft(claimed)) claimRevision = claimed.right.nextExpectedRevision;
    }
    if (claimRevision === undefined) throw inProgress();

    let reply: Reply;
    try {
      reply = await execute();
    } catch (err) {
      if (isHttpError(err) && err.status < 500) {
        reply = problemReply(err);
      } else {
        await append([{ type: 'IdempotencyKeyReleased', data: { claimId, releasedAt: now().toISOString() } }], claimRevision);
        throw err;
      }
    }
    const dataKey = await deps.dataKeys.issue(replyOwner(claimId));
    if (isLeft(dataKey)) throw new Error(`idempotency data key: ${dataKey.left._tag}`);
    const recorded = await append(
      [{ type: 'IdempotentReplyRecorded', data: { claimId, status: reply.status, reply: dataKey.right.seal(encodeReply(reply), PURPOSE) } }],
      claimRevision,
    );
    if (isLeft(recorded)) {
      // Our lease lapsed and another request took the key over: its reply will be the recorded
      // one, and nothing sealed with our key is stored.
      await deps.dataKeys.destroy(replyOwner(claimId));
      deps.log.warn('idempotent reply not recorded: the claim was taken over', { requestId: requestIdOf(ctx) });
    }
    sendReply(ctx, reply);
  };
};
