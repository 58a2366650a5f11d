// Reading a tenant's singleton resource (the use case, no HTTP; `/verifier`, `/settings`,
// streams/singleton.ts): it exists from the tenant's creation, so before its first change its
// revision 1 is implicit, made from the tenant's creation time as the first change records it.
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import type { SqlReader } from '../../projections/projection.js';
import { findHistory, findLatest, findRevision, type ResourceAddress } from '../../projections/resources.js';
import { findTenant } from '../../projections/tenants.js';
import type { Event } from '../../streams/event.js';
import type { AnyKindCommand, Envelope } from '../../streams/resource.js';
import { streamName } from '../../streams/kernel.js';
import { singletonId } from '../../streams/singleton.js';
import type { VersionedKind } from './kind.js';
import { ENVELOPE_ONLY } from './search.js';

export interface SingletonKind<E extends Event, C extends AnyKindCommand> extends VersionedKind<E, C> {
  /** Revision 1, nothing set: the tenant's, at its creation. */
  readonly initial: (tenantId: string, id: string, tenantCreatedAt: string) => Envelope | undefined;
}

/** A singleton kind: scope `admin`, its stream in its decider's category, searched by the envelope only. */
export const singletonKind = <E extends Event, C extends AnyKindCommand>(kind: Pick<SingletonKind<E, C>, 'path' | 'name' | 'decider' | 'initial' | 'render'>): SingletonKind<E, C> => ({
  scope: 'admin',
  streamOf: (id) => streamName(kind.decider.category, id),
  search: ENVELOPE_ONLY,
  ...kind,
});

/** The tenant's singleton of a kind, and when the tenant was created. */
export type SingletonAddress = ResourceAddress & { readonly tenantCreatedAt: string };

/** An authenticated caller's tenant exists, but the read model may lag its creation by a moment: 404. */
export type TenantNotKnown = { readonly _tag: 'TenantNotKnown' };

export const singletonOf = (db: SqlReader, tenantId: string, kind: { readonly name: string }): Either<TenantNotKnown, SingletonAddress> => {
  const tenant = findTenant(db, tenantId);
  if (!tenant) return left({ _tag: 'TenantNotKnown' });
  return right({ tenantId, kind: kind.name, id: singletonId(kind.name, tenantId), tenantCreatedAt: tenant.created_at });
};

/** The singleton's latest revision: the recorded one, or the implicit revision 1. */
export const latestSingleton = <E extends Event, C extends AnyKindCommand>(db: SqlReader, kind: SingletonKind<E, C>, a: SingletonAddress): Envelope | undefined =>
  findLatest(db, a) ?? kind.initial(a.tenantId, a.id, a.tenantCreatedAt);

/** The revisions of the singleton, oldest first: the recorded ones, or the implicit revision 1. */
export const singletonHistory = <E extends Event, C extends AnyKindCommand>(db: SqlReader, kind: SingletonKind<E, C>, a: SingletonAddress): Envelope[] => {
  const recorded = findHistory(db, a);
  if (recorded.length > 0) return recorded;
  const initial = kind.initial(a.tenantId, a.id, a.tenantCreatedAt);
  return initial ? [initial] : [];
};

/** Revision `revision` of the singleton: a recorded one, or revision 1 while none is recorded. */
export const singletonRevision = <E extends Event, C extends AnyKindCommand>(db: SqlReader, kind: SingletonKind<E, C>, a: SingletonAddress, revision: number): Envelope | undefined =>
  findRevision(db, a, revision) ?? (revision === 1 && !findLatest(db, a) ? kind.initial(a.tenantId, a.id, a.tenantCreatedAt) : undefined);
