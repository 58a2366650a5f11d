// The recorder: a subscription to `$all`, filtered to the flow categories, that translates each
// event asking for a callback (callbackOf.ts) into a delivery stream holding the callback request.
// The delivery id is derived from (tenant, eventId, status) and the stream is created with
// `no_stream`, so however many instances see the event, one records it and the others find it
// recorded.
//
// Checkpoint: none of its own. Each instance records in `$all` order, so the furthest source
// position among the recorded deliveries (the deliveries read model, itself rebuilt from the
// store) is a point before which everything is recorded. A restart resumes there; events after it
// that another instance already recorded collide harmlessly on `no_stream`.
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { delivery, deliveryIdOf, deliveryStream, type CallbackRequest, type Command, type Delivery, type DomainError } from '../../streams/delivery.js';
import {
  formatPosition,
  START,
  type EventStore,
  type Position,
  type RecordedEvent,
  type Subscription,
} from '../eventstore/port.js';
import type { Logger } from '../log.js';
import { streamRef } from '../../streams/kernel.js';
import { handleCommand, type CommandError } from '../eventstore/handle.js';
import { Resubscribing } from '../eventstore/resubscribe.js';
import { callbackOf, callbackSourceCategories } from './callbackOf.js';

export const sourceFilter = { streamNamePrefixes: callbackSourceCategories.map((c) => `${c}-`) };

export interface Claim {
  readonly instanceId: string;
  readonly expiresAt: Date;
}

/** Why nothing was recorded, as the command handler tags it. */
export type RecordError = CommandError<DomainError>;

/**
 * Records the delivery a source event asks for, claimed at once by `claim` when given (one append:
 * the instance that records it attempts it first). A `store` WrongExpectedRevision (or a `domain`
 * DeliveryExists) means it was already recorded.
 */
export const recordDelivery = async (
  store: EventStore,
  recorded: RecordedEvent,
  callback: CallbackRequest,
  now: Date,
  claim: Claim | undefined,
): Promise<Either<RecordError, { readonly delivery: Delivery; readonly revision: number }>> => {
  const deliveryId = deliveryIdOf(callback.tenantId, callback.eventId, callback.status);
  const command: Command = {
    type: 'RecordDelivery',
    data: {
      deliveryId,
      source: { streamId: recorded.streamId, revision: recorded.revision, eventId: recorded.id, position: formatPosition(recorded.position) },
      callback,
      claim: claim && { instanceId: claim.instanceId, expiresAt: claim.expiresAt.toISOString() },
      at: now.toISOString(),
    },
  };
  // A fresh command id: another instance's identical append must fail on `no_stream`, not be
  // taken for an idempotent retry of ours (it would then believe it holds the claim).
  const handled = await handleCommand(store, delivery, deliveryStream(deliveryId), command, {
    commandId: randomUUID(),
    metadata: { actor: 'callbacks' },
    loaded: { state: delivery.initialState, expectedRevision: 'no_stream' },
  });
  if (isLeft(handled)) return left(handled.left);
  if (handled.right.state.status === 'none') throw new Error('a recorded delivery folds to a delivery');
  return right({ delivery: handled.right.state, revision: handled.right.revision });
};

export interface RecorderOptions {
  readonly store: EventStore;
  readonly log: Logger;
  readonly now: () => Date;
  /** Called for each source event that asks for a callback, with its request; it records (and may claim). */
  readonly onCallback: (recorded: RecordedEvent, callback: CallbackRequest) => Promise<void>;
}

/** Translates the source events after a position, resubscribing from the last one handled after a failure. */
export class DeliveryRecorder {
  private position: Position = START;
  private readonly loop: Resubscribing;

  constructor(private readonly options: RecorderOptions) {
    this.loop = new Resubscribing({
      subscribe: () => options.store.subscribeToAll({ after: this.position, filter: sourceFilter }),
      consume: (subscription, progressed) => this.consume(subscription, progressed),
      failed: (err, retryInMs) => options.log.error('callback recorder failed; resubscribing', { err, after: formatPosition(this.position), backoffMs: retryInMs }),
      backoffMs: { first: 250, max: 10_000 },
    });
  }

  start(after: Position): void {
    this.position = after;
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async consume(subscription: Subscription, progressed: () => void): Promise<void> {
    for await (const message of subscription) {
      if (message.kind !== 'event') continue;
      const callback = callbackOf(message.event);
      if (isLeft(callback)) {
        // A flow broke the contract; stalling every other tenant's callbacks behind it would be
        // worse than skipping it loudly.
        this.options.log.error('event breaks its contract, no callback; skipped', {
          stream: streamRef(message.event.streamId), revision: message.event.revision, type: message.event.type, failures: callback.left.failures,
        });
      } else if (callback.right) {
        await this.options.onCallback(message.event, callback.right);
      }
      this.position = message.event.position;
      progressed();
    }
  }
}
