// Idempotency-Key on the resource API's writes. Keys are claimed through the event store (the
// `idempotency` streams), not process memory, so they hold across instances over one store: of
// two requests claiming one key at the same moment, one appends its claim and the other sees it.
// The use case (`idempotently`) takes plain values; src/resources/idempotentWrites.ts is its HTTP edge.
import { createHash, randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { idempotency, idempotencyStream, REPLY, replyOwner, supersededClaim, type Command, type IdempotencyEvent, type IdempotencyState } from '../../streams/idempotency.js';
import { openFor, sealFor } from '../crypto/dataKeys.js';
import { handleCommand, loadStream, type CommandOptions, type EventMetadata, type Loaded } from '../eventstore/handle.js';
import type { Json } from '../eventstore/port.js';
import { isHttpError } from '../http/problem.js';
import type { ServiceContext } from '../featureContract.js';
import { problemReply, recordedReply, type Reply } from './reply.js';

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

/** Why a write under an Idempotency-Key is refused (src/resources/problems.ts maps each to its problem). */
export type IdempotencyError =
  /** Not 32-256 characters of a-z, A-Z, 0-9 and -: 400. */
  | { readonly _tag: 'IdempotencyKeyMalformed'; readonly key: string }
  /** The key's recorded request is another one: 422. */
  | { readonly _tag: 'IdempotencyKeyReused' }
  /** Another request with the key is still running: 409. */
  | { readonly _tag: 'IdempotencyKeyInProgress' };

/** A write under an Idempotency-Key, as plain values. */
export interface IdempotentRequest {
  readonly tenantId: string;
  /** The Idempotency-Key; empty when none was given (the write just runs). */
  readonly key: string;
  /** What makes two requests the same (`fingerprintOf`). */
  readonly fingerprint: string;
  readonly metadata: EventMetadata;
}

export interface Answered {
  readonly reply: Reply;
  /** The recorded reply of the same request, not a new write. */
  readonly replayed: boolean;
}

export type IdempotencyPorts = Pick<ServiceContext, 'store' | 'dataKeys' | 'log'> & { readonly keyLifetimeSeconds: number; readonly now: () => Date };

/**
 * Runs a write under its Idempotency-Key, if any: replays the recorded reply of the same request,
 * refuses a different request (IdempotencyKeyReused) or one racing the first
 * (IdempotencyKeyInProgress), or claims the key, runs the write and records its reply. A write
 * that throws an HTTP error below 500 answers that problem (recorded like any reply); one that
 * throws anything else releases the key and throws on.
 */
export const idempotently = (deps: IdempotencyPorts) => {
  const lifetimeMs = deps.keyLifetimeSeconds * 1000;
  return async (request: IdempotentRequest, execute: () => Promise<Reply>): Promise<Either<IdempotencyError, Answered>> => {
    const { key, fingerprint, metadata } = request;
    if (key === '') return right({ reply: await execute(), replayed: false });
    if (!KEY.test(key)) return left({ _tag: 'IdempotencyKeyMalformed', key });
    const stream = idempotencyStream(keyHashOf(request.tenantId, key));
    const at = deps.now().toISOString();
    const claimId = randomUUID();
    // Each command of this claim names its own events: `claim.<id>`, `reply.<id>`, `release.<id>`.
    const run = (name: string, command: Command, loaded: Loaded<IdempotencyState>, beforeAppend?: CommandOptions<IdempotencyState, IdempotencyEvent, never>['beforeAppend']) =>
      handleCommand(deps.store, idempotency, stream, command, { commandId: `${name}.${claimId}`, metadata, loaded, ...(beforeAppend ? { beforeAppend } : {}) });
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
      if (isLeft(handled) && handled.left.kind === 'domain' && handled.left.error._tag === 'AlreadyAnswered') {
        const { answered } = handled.left.error;
        const dataKey = await deps.dataKeys.find(replyOwner(answered.claimId));
        if (dataKey) return right({ reply: openFor(dataKey, REPLY, answered.reply), replayed: true });
        // The answer's reply is shredded: the same request claims the key anew, on the same state.
        handled = await runClaim({ ...claim, data: { ...claim.data, replyGone: true } }, loaded.right);
      }
      if (!isLeft(handled)) {
        claimed = { state: handled.right.state, expectedRevision: handled.right.revision };
        continue;
      }
      const failed = handled.left;
      switch (failed.kind) {
        case 'domain':
          return left(failed.error._tag === 'KeyUsedForAnotherRequest' ? { _tag: 'IdempotencyKeyReused' } : { _tag: 'IdempotencyKeyInProgress' });
        case 'store':
          if (failed.error._tag !== 'WrongExpectedRevision') return left({ _tag: 'IdempotencyKeyInProgress' });
      }
    }
    if (claimed === undefined) return left({ _tag: 'IdempotencyKeyInProgress' });

    let reply: Reply;
    try {
      reply = await execute();
    } catch (err) {
      if (isHttpError(err) && err.status < 500) {
        reply = problemReply(err);
      } else {
        await run('release', { type: 'ReleaseKey', data: { claimId, at: deps.now().toISOString() } }, claimed);
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
      deps.log.warn('idempotent reply not recorded: the claim was taken over', { requestId: metadata.requestId });
    }
    return right({ reply, replayed: false });
  };
};
