// Activating a signing key (the use case, no HTTP; issue 38): the key becomes the tenant's key of
// its role, and the key it replaces is retired on its own stream, after this one became active
// (should that step not happen, the key activated last is still the one that signs).
import { randomUUID } from 'node:crypto';
import { isLeft, right, type Either } from 'fp-ts/lib/Either.js';
import { findLatest, findOtherActiveSigningKeys } from '../../projections/resources.js';
import type { Envelope, Target } from '../../streams/resource.js';
import { signingKey, signingKeyStream, type SigningKeyRole } from '../../streams/signingKey.js';
import { handleCommand, type EventMetadata } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import type { ProjectionRunner } from '../readside/projectionRunner.js';
import type { KindRefusal } from './kind.js';
import { signingKeysKind } from './signingKeysKind.js';
import { updateResource, type UpdateError } from './update.js';

export interface ActivateSigningKeyDeps {
  readonly store: EventStore;
  readonly runner: Pick<ProjectionRunner, 'db' | 'waitFor'>;
  readonly readYourWritesTimeoutMs: number;
}

/** Activates the key `target` names and retires the active key of its role it replaces; the key as the read models then hold it. */
export const activateSigningKey = async (deps: ActivateSigningKeyDeps, target: Target, metadata: EventMetadata): Promise<Either<UpdateError<KindRefusal>, Envelope>> => {
  const { tenantId, id, at } = target;
  const activated = await updateResource(deps.store, signingKeysKind, target, { type: 'ActivateSigningKey', data: {} }, metadata);
  if (isLeft(activated)) return activated;
  await deps.runner.waitFor(activated.right.position, deps.readYourWritesTimeoutMs);
  const role = activated.right.envelope.data['role'] as SigningKeyRole;
  for (const other of findOtherActiveSigningKeys(deps.runner.db, tenantId, role, id)) {
    const retire = { type: 'RetireSigningKey', data: { tenantId, id: other, ifMatch: () => true, at, replacedBy: id } } as const;
    const retired = await handleCommand(deps.store, signingKey, signingKeyStream(other), retire, { commandId: randomUUID(), metadata });
    if (isLeft(retired)) throw new Error(`signing key ${other} not retired: ${retired.left.error._tag}`);
    // Retired meanwhile by another activation: nothing recorded.
    if (retired.right.position) await deps.runner.waitFor(retired.right.position, deps.readYourWritesTimeoutMs);
  }
  return right(findLatest(deps.runner.db, { tenantId, kind: signingKeysKind.name, id }) ?? activated.right.envelope);
};
