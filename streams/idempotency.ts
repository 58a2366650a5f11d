// Stream category `idempotency`: one stream per (tenant, Idempotency-Key), named by a hash of
// the two so neither appears in the store: `idempotency-<hex sha256>`. A key lives through
// generations: each claim starts one, and a claim may only be taken over once its generation
// has expired (IDEMPOTENCY_KEY_TTL_SECONDS, 24 h) or been released. The recorded reply is sealed
// with the generation's data key (owner `idempotency.<claimId>`): it can carry a secret (an API
// key's) or personal data, so the key is destroyed once the generation expires (by the expiry
// scheduler, or by the next claim, whichever comes first). As a decider:
//
//   free --ClaimKey--> running --RecordReply--> done
//   running --ReleaseKey--> free                  (the request failed without an answer to keep)
//   done | running --ShredReply--> free           (the generation expired; its reply's key destroyed)
//   running (lease lapsed) | done or running (expired) --ClaimKey--> running (a new generation)
//
// Pure: the claim's id, the time, the request's fingerprint, the sealed reply and whether the
// recorded reply's data key is still there come in the command.
import * as t from 'io-ts';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { sealedFor, sealedPurpose, type Sealed } from './dataKey.js';
import { JsonValue } from './resource.js';
import { eventCodec, type Decider } from './event.js';

export const category = 'idempotency';
export const idempotencyStream = (keyHash: string): string => streamName(category, keyHash);
export const replyOwner = (claimId: string): string => `idempotency.${claimId}`;

/** A request claims the key; `fingerprint` (a hash of method, path, If-Match and body) tells "the same request". */
export const IdempotencyKeyClaimed = eventCodec(
  'IdempotencyKeyClaimed',
  t.type({ claimId: t.string, fingerprint: t.string, claimedAt: t.string, expiresAt: t.string }),
);
/** A recorded answer: its status, its JSON body and the headers that belong to it (ETag, Location...). */
export const RecordedReply = t.type({ status: t.number, body: JsonValue, headers: t.record(t.string, t.string) });
export type RecordedReply = t.TypeOf<typeof RecordedReply>;
/** The purpose a reply is sealed for, with the claim's data key (owner `idempotency.<claim id>`). */
export const REPLY = sealedPurpose('idempotent-reply', RecordedReply);
const SealedReply = sealedFor(REPLY);

/** The claiming request's answer, to be replayed for the same request until the claim expires. */
export const IdempotentReplyRecorded = eventCodec('IdempotentReplyRecorded', t.type({ claimId: t.string, status: t.number, reply: SealedReply }));
/** The claiming request failed without an answer worth keeping (5xx): the key is free again. */
export const IdempotencyKeyReleased = eventCodec('IdempotencyKeyReleased', t.type({ claimId: t.string, releasedAt: t.string }));

/** The generation expired and the data key of its reply was destroyed: the reply is gone, the key free. */
export const IdempotentReplyShredded = eventCodec('IdempotentReplyShredded', t.type({ claimId: t.string, shreddedAt: t.string }));

/** Every event an idempotency stream can hold. */
export const IdempotencyEvent = t.union([IdempotencyKeyClaimed, IdempotentReplyRecorded, IdempotencyKeyReleased, IdempotentReplyShredded]);
export type IdempotencyEvent = t.TypeOf<typeof IdempotencyEvent>;

export type IdempotencyState =
  | { readonly status: 'free'; readonly previousClaimId?: string }
  | {
      readonly status: 'running';
      readonly claimId: string;
      readonly fingerprint: string;
      readonly claimedAt: string;
      readonly expiresAt: string;
    }
  | { readonly status: 'done'; readonly claimId: string; readonly fingerprint: string; readonly expiresAt: string; readonly reply: Sealed<RecordedReply> };

/** A claim without a reply after this long belongs to a request that died: the key may be retried. */
export const CLAIM_LEASE_MS = 60 * 1000;

type Done = Extract<IdempotencyState, { status: 'done' }>;

export type Command =
  | {
      readonly type: 'ClaimKey';
      readonly data: {
        readonly claimId: string;
        readonly fingerprint: string;
        readonly at: string;
        readonly expiresAt: string;
        /**
         * The recorded reply's data key is gone (an instance whose clock is ahead of ours found the
         * generation expired and shredded it): there is nothing to replay, so the key is claimed.
         */
        readonly replyGone: boolean;
      };
    }
  | { readonly type: 'RecordReply'; readonly data: { readonly claimId: string; readonly status: number; readonly reply: Sealed<RecordedReply> } }
  | { readonly type: 'ReleaseKey'; readonly data: { readonly claimId: string; readonly at: string } }
  | { readonly type: 'ShredReply'; readonly data: { readonly claimId: string; readonly at: string } };

export type DomainError =
  /** Same key, different request: 422. */
  | { readonly _tag: 'KeyUsedForAnotherRequest' }
  /** The first request with this key is still running: 409. */
  | { readonly _tag: 'ClaimInProgress' }
  /** The same request was answered: its reply is replayed, nothing recorded. */
  | { readonly _tag: 'AlreadyAnswered'; readonly answered: Done }
  /** The claim's lease lapsed and another request took the key over. */
  | { readonly _tag: 'ClaimTakenOver'; readonly claimId: string };

export const initialState: IdempotencyState = { status: 'free' };

export const evolve = (state: IdempotencyState, event: IdempotencyEvent): IdempotencyState => {
  switch (event.type) {
    case 'IdempotencyKeyClaimed': {
      const { claimId, fingerprint, claimedAt, expiresAt } = event.data;
      return { status: 'running', claimId, fingerprint, claimedAt, expiresAt };
    }
    case 'IdempotentReplyRecorded':
      return state.status === 'running' ? { ...state, status: 'done', reply: event.data.reply } : state;
    case 'IdempotencyKeyReleased':
      return { status: 'free', previousClaimId: event.data.claimId };
    case 'IdempotentReplyShredded':
      return state.status !== 'free' && state.claimId === event.data.claimId ? { status: 'free', previousClaimId: event.data.claimId } : state;
  }
};

const expired = (state: IdempotencyState, at: string): boolean => state.status !== 'free' && Date.parse(state.expiresAt) <= Date.parse(at);

/**
 * The generation a claim at `at` supersedes by expiry: its reply's data key is destroyed before
 * the claim is appended, so whatever happens next, the reply is gone.
 */
export const supersededClaim = (state: IdempotencyState, at: string): string | undefined =>
  state.status !== 'free' && expired(state, at) ? state.claimId : undefined;

export const decide = (command: Command, state: IdempotencyState): Either<DomainError, IdempotencyEvent[]> => {
  switch (command.type) {
    case 'ClaimKey': {
      const { claimId, fingerprint, at, expiresAt, replyGone } = command.data;
      const claimed: IdempotencyEvent[] = [{ type: 'IdempotencyKeyClaimed', data: { claimId, fingerprint, claimedAt: at, expiresAt } }];
      if (state.status === 'free' || expired(state, at)) return right(claimed);
      if (state.fingerprint !== fingerprint) return left({ _tag: 'KeyUsedForAnotherRequest' });
      if (state.status === 'done') return replyGone ? right(claimed) : left({ _tag: 'AlreadyAnswered', answered: state });
      if (Date.parse(state.claimedAt) + CLAIM_LEASE_MS <= Date.parse(at)) return right(claimed);
      return left({ _tag: 'ClaimInProgress' });
    }
    case 'RecordReply': {
      const { claimId, status, reply } = command.data;
      if (state.status !== 'running' || state.claimId !== claimId) return left({ _tag: 'ClaimTakenOver', claimId });
      return right([{ type: 'IdempotentReplyRecorded', data: { claimId, status, reply } }]);
    }
    case 'ReleaseKey': {
      const { claimId, at } = command.data;
      if (state.status !== 'running' || state.claimId !== claimId) return left({ _tag: 'ClaimTakenOver', claimId });
      return right([{ type: 'IdempotencyKeyReleased', data: { claimId, releasedAt: at } }]);
    }
    case 'ShredReply': {
      const { claimId, at } = command.data;
      // The stream moved on to another generation (whose claim destroyed this one's key), or the
      // shred is recorded already: nothing to record.
      if (state.status === 'free' || state.claimId !== claimId) return right([]);
      return right([{ type: 'IdempotentReplyShredded', data: { claimId, shreddedAt: at } }]);
    }
  }
};

export const idempotency: Decider<Command, IdempotencyState, IdempotencyEvent, DomainError> = {
  category,
  codec: IdempotencyEvent,
  initialState,
  evolve,
  decide,
};
