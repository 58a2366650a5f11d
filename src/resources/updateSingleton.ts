// Changing a tenant's singleton resource (the use case, no HTTP; streams/singleton.ts): with
// If-Match, on the revision it names (it exists from the tenant's creation, so every change
// changes a revision the caller has seen). The kind's own operation is made from the data of that
// revision (replaceSettings.ts, registerVerifier.ts).
import { isLeft, left, type Either } from 'fp-ts/lib/Either.js';
import type { SqlReader } from '../../projections/projection.js';
import type { Event } from '../../streams/event.js';
import type { AnyChange, AnyKindCommand, ResourceData } from '../../streams/resource.js';
import type { EventMetadata } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import { etagOfEnvelope } from './envelope.js';
import { latestSingleton, type SingletonAddress, type SingletonKind } from './readSingleton.js';
import { updateResource, type Updated, type UpdateError } from './update.js';

/** The kind's operation on its singleton, without its target. */
export interface SingletonChange {
  readonly type: string;
  readonly data: { readonly [member: string]: unknown };
}

export const updateSingleton = async <E extends Event, C extends AnyKindCommand, F extends { readonly _tag: string }>(
  deps: { readonly store: EventStore; readonly db: SqlReader },
  kind: SingletonKind<E, C>,
  a: SingletonAddress,
  target: { readonly ifMatch: (currentEtag: string) => boolean; readonly at: string },
  changeOf: (current: ResourceData) => Promise<Either<F, SingletonChange>>,
  metadata: EventMetadata,
): Promise<Either<F | UpdateError, Updated>> => {
  // The change is made on the revision If-Match names: the read models' latest (the decider
  // checks again on the stream; a read model behind it answers 412, never a change on stale data).
  const current = latestSingleton(deps.db, kind, a);
  if (!current || !target.ifMatch(etagOfEnvelope(current))) return left({ _tag: 'PreconditionFailed' });
  const change = await changeOf(current.data);
  if (isLeft(change)) return change;
  return updateResource(
    deps.store,
    kind,
    { tenantId: a.tenantId, id: a.id, ifMatch: target.ifMatch, at: target.at },
    // The kind's own operation on its singleton names the tenant's creation (streams/singleton.ts).
    { type: change.right.type, data: { ...change.right.data, tenantCreatedAt: a.tenantCreatedAt } } as AnyChange,
    metadata,
  );
};
