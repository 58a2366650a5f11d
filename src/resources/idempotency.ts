// Idempotency-Key on the resource API's writes. Keys are claimed through the event store (the
// `idempotency` streams), not process memory, so they hold across instances over one store: of
// two requests claiming one key at the same moment, one appends its claim and the other sees it.
import { createHash, randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import { isLeft, right } from 'fp-ts/lib/Either.js';
import { idempotency, idempotencyStream, REPLY, replyOwner, supersededClaim, type Command, type IdempotencyEvent, type IdempotencyState } from '../../streams/idempotency.js';
import { openFor, sealFor } from '../crypto/dataKeys.js';
import { handleCommand, loadStream, type CommandOptions, type Loaded } from '../eventstore/handle.js';
import type { Json } from '../eventstore/port.js';
import { conflict, HttpError, invalidRequest, isHttpError, unprocessable } from '../http/problem.js';
import { requestIdOf } from '../log.js';
import { principalOf } from '../tenancy/authenticate.js';
import type { ServiceContext } from '../featureContract.js';
import { metadataOf } from './routes.js';
import { problemReply, recordedReply, sendReply, type Reply } from './reply.js';

const KEY = /^[a-zA-Z0-9-]{32,256}$/;

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
  // A lost race is another instance recording it first, or a new claim: either way it is done.
  await handleCommand(deps.store, idempotency, stream, { type: 'ShredReply', data: { claimId, at: at.toISOString() } }, { commandId: `shred.${claimId}`, metadata: { actor: 'scheduler' } });
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
    const at = now().toISOString();
    const claimId = randomUUID();
    // Each command of this claim names its own events: `claim.<id>`, `reply.<id>`, `release.<id>`.
    const run = (name: string, command: Command, loaded: Loaded<IdempotencyState>, beforeAppend?: CommandOptions<IdempotencyState, IdempotencyEvent, never>['beforeAppend']) =>
      handleCommand(deps.store, idempotency, stream, command, { commandId: `${name}.${claimId}`, metadata: metadataOf(ctx), loaded, ...(beforeAppend ? { beforeAppend } : {}) });
    // An expired generation's reply is destroyed before the claim that frees its key is recorded.
    const runClaim = (command: Command, loaded: Loaded<IdempotencyState>) =>
      run('claim', command, loaded, async (_events, state) => {
        const superseded = supersededClaim(state, at);
        if (superseded) await deps.dataKeys.destroy(replyOwner(superseded));
        return right(undefined);
      });
    const claim: Command = {
      type: 'ClaimKey',
      data: { claimId, fingerprint, at, expiresAt: new Date(Date.parse(at) + lifetimeMs).toISOString(), replyGone: false },
    };
    let claimed: Loaded<IdempotencyState> | undefined;
    // A lost claim is decided again on what beat it: another request's claim is a 409, but the
    // expiry scheduler recording a shred only freed the key further.
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS && claimed === undefined; attempt++) {
      const loaded = await loadStream(deps.store, idempotency, stream);
      if (isLeft(loaded)) throw new Error(`idempotency stream unreadable: ${loaded.left._tag}`);
      let handled = await runClaim(claim, loaded.right);
      if (isLeft(handled) && handled.left._tag === 'AlreadyAnswered') {
        const dataKey = await deps.dataKeys.find(replyOwner(handled.left.answered.claimId));
        if (dataKey) {
          ctx.set('Idempotent-Replayed', 'true');
          return sendReply(ctx, openFor(dataKey, REPLY, handled.left.answered.reply));
        }
        // The answer's reply is shredded: the same request claims the key anew, on the same state.
        handled = await runClaim({ ...claim, data: { ...claim.data, replyGone: true } }, loaded.right);
      }
      if (!isLeft(handled)) {
        claimed = { state: handled.right.state, expectedRevision: handled.right.revision };
      } else if (handled.left._tag === 'KeyUsedForAnotherRequest') {
        throw new HttpError(unprocessable('This Idempotency-Key was used for a different request.', [{ location: 'header.idempotency-key', message: 'used for a different request', value: undefined }]));
      } else if (handled.left._tag !== 'WrongExpectedRevision') {
        throw inProgress();
      }
    }
    if (claimed === undefined) throw inProgress();

    let reply: Reply;
    try {
      reply = await execute();
    } catch (err) {
      if (isHttpError(err) && err.status < 500) {
        reply = problemReply(err);
      } else {
        await run('release', { type: 'ReleaseKey', data: { claimId, at: now().toISOString() } }, claimed);
        throw err;
      }
    }
    const dataKey = await deps.dataKeys.issue(replyOwner(claimId));
    if (isLeft(dataKey)) throw new Error(`idempotency data key: ${dataKey.left._tag}`);
    const recorded = await run('reply', { type: 'RecordReply', data: { claimId, status: reply.status, reply: sealFor(dataKey.right, REPLY, recordedReply(reply)) } }, claimed);
    if (isLeft(recorded)) {
      // Our lease lapsed and another request took the key over: its reply will be the recorded
      // one, and nothing sealed with our key is stored.
      await deps.dataKeys.destroy(replyOwner(claimId));
      deps.log.warn('idempotent reply not recorded: the claim was taken over', { requestId: requestIdOf(ctx) });
    }
    sendReply(ctx, reply);
  };
};
