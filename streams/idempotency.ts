// Stream category `idempotency`: one stream per (tenant, Idempotency-Key), named by a hash of
// the two so neither appears in the store: `idempotency-<hex sha256>`. A key lives through
// generations: each claim starts one, and a claim may only be taken over once its generation
// has expired (IDEMPOTENCY_KEY_TTL_SECONDS, 24 h) or been released. The recorded reply is sealed
// with the generation's data key (owner `idempotency.<claimId>`): it can carry a secret (an API
// key's) or personal data, so the key is destroyed once the generation expires (by the expiry
// scheduler, or by the next claim, whichever comes first).
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { Sealed } from './dataKey.js';
import { eventCodec, type StreamContract } from './event.js';

export const category = 'idempotency';
export const idempotencyStream = (keyHash: string): string => streamName(category, keyHash);
export const replyOwner = (claimId: string): string => `idempotency.${claimId}`;

/** A request claims the key; `fingerprint` (a hash of method, path, If-Match and body) tells "the same request". */
export const IdempotencyKeyClaimed = eventCodec(
  'IdempotencyKeyClaimed',
  t.type({ claimId: t.string, fingerprint: t.string, claimedAt: t.string, expiresAt: t.string }),
);
/** The claiming request's answer, to be replayed for the same request until the claim expires. */
export const IdempotentReplyRecorded = eventCodec('IdempotentReplyRecorded', t.type({ claimId: t.string, status: t.number, reply: Sealed }));
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
  | { readonly status: 'done'; readonly claimId: string; readonly fingerprint: string; readonly expiresAt: string; readonly reply: Sealed };

export const idempotency: StreamContract<IdempotencyState, IdempotencyEvent> = {
  category,
  codec: IdempotencyEvent,
  initialState: { status: 'free' },
  evolve: (state, event) => {
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
  },
};
