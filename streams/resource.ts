// The versioned-resource envelope every kind of the resource API shares (the resource API
// specification, "Common resource envelope"). Each kind keeps its own stream category (`apikey-<id>` for API
// keys), so an auditor reads one module per kind; this module holds what they have in common:
// the envelope, the changes a kind's events map to, and the fold from changes to envelope.
// Every event of a kind's stream is one revision: revision = stream revision + 1.
import { createHash } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { isRecord, type Json } from './kernel.js';
import { eventCodec, type Decider, type Event } from './event.js';

export const MAX_REVISION = 999_999;

/** User metadata, string -> string. */
export const StringMap = t.record(t.string, t.string, 'StringMap');
export type StringMap = t.TypeOf<typeof StringMap>;

export interface ResourceKind {
  readonly name: string;
  readonly version: number;
}

export type ResourceData = { readonly [key: string]: Json };

/** A JSON object given by a client (a ClaimsSchema): input that arrived as JSON, so JSON throughout. */
export const JsonObject = new t.Type<ResourceData, ResourceData, unknown>(
  'JsonObject',
  (u): u is ResourceData => isRecord(u),
  (u, c) => (isRecord(u) ? t.success(u as ResourceData) : t.failure(u, c)),
  t.identity,
);

/** A JSON array given by a client (a claim value); like JsonObject, JSON because it arrived as JSON. */
export const JsonArray = new t.Type<readonly Json[], readonly Json[], unknown>(
  'JsonArray',
  (u): u is readonly Json[] => Array.isArray(u),
  (u, c) => (Array.isArray(u) ? t.success(u as readonly Json[]) : t.failure(u, c)),
  t.identity,
);

const JsonMember = t.union([t.string, t.number, t.boolean, t.null, JsonArray, JsonObject]);

/** Any JSON value (a claim value, a reply body), read back where it was written as JSON. */
export const JsonValue = new t.Type<Json, Json, unknown>('JsonValue', JsonMember.is, JsonMember.validate, t.identity);

/** A resource at one revision, as the write side folds it and the read models store it. */
export interface Envelope {
  readonly id: string;
  readonly tenantId: string;
  readonly kind: ResourceKind;
  readonly revision: number;
  readonly createdAt: string;
  readonly modifiedAt: string;
  readonly deletedAt: string | null;
  readonly annotations: StringMap;
  readonly labels: StringMap;
  readonly data: ResourceData;
}

/** What one event of a kind's stream does to its envelope. */
export type ResourceChange =
  | {
      readonly op: 'created';
      readonly id: string;
      readonly tenantId: string;
      readonly kind: ResourceKind;
      readonly at: string;
      readonly annotations: StringMap;
      readonly labels: StringMap;
      readonly data: ResourceData;
    }
  | { readonly op: 'annotations'; readonly at: string; readonly annotations: StringMap }
  | { readonly op: 'labels'; readonly at: string; readonly labels: StringMap }
  | { readonly op: 'deleted'; readonly at: string }
  | { readonly op: 'restored'; readonly at: string }
  /** Kind-specific: sets these top-level members of `data`, keeping the others. */
  | { readonly op: 'data'; readonly at: string; readonly data: ResourceData }
  /** Kind-specific: `data` becomes this, whole (a credential configuration replaced). */
  | { readonly op: 'replaced'; readonly at: string; readonly data: ResourceData };

/**
 * The envelope after one more event. A change to a resource that was never created is a broken
 * stream, not input: it throws.
 */
export const applyChange = (envelope: Envelope | undefined, change: ResourceChange): Envelope => {
  if (change.op === 'created') {
    const { id, tenantId, kind, at, annotations, labels, data } = change;
    return { id, tenantId, kind, revision: 1, createdAt: at, modifiedAt: at, deletedAt: null, annotations, labels, data };
  }
  if (!envelope) throw new Error(`resource change ${change.op} before the resource was created`);
  const next = { ...envelope, revision: envelope.revision + 1, modifiedAt: change.at };
  switch (change.op) {
    case 'annotations':
      return { ...next, annotations: change.annotations };
    case 'labels':
      return { ...next, labels: change.labels };
    case 'deleted':
      return { ...next, deletedAt: change.at };
    case 'restored':
      return { ...next, deletedAt: null };
    case 'data':
      return { ...next, data: { ...envelope.data, ...change.data } };
    case 'replaced':
      return { ...next, data: change.data };
  }
};

/**
 * Whether a resource deleted at `deletedAt` may still be restored at `at`: within the restore
 * window (RESTORE_WINDOW_SECONDS). Past it, a kind whose content is erased then (credentials,
 * files: their blob's key is destroyed) refuses the restore.
 */
export const restorable = (deletedAt: string, at: string, restoreWindowSeconds: number): boolean =>
  Date.parse(at) < Date.parse(deletedAt) + restoreWindowSeconds * 1000;

/**
 * The strong entity tag of a resource revision: opaque, different for every revision, and
 * computable from the stream alone, so the write side and every read model agree on it.
 */
export const etagOf = (id: string, revision: number): string =>
  `"${createHash('sha256').update(`${id}\n${revision}`).digest('base64url').slice(0, 27)}"`;

// The rules every kind shares, once: a resource is created once; then a change names the resource
// (404 for an unknown one or another tenant's, whatever the etag), its If-Match (412 when stale,
// before any state conflict), and meets the state (409: published, deleted / not deleted, the last
// revision). `resourceKind` builds a kind's decider from what the kind names: its events and its
// own operations.

/** The resource a change names, the If-Match it carries (a pure test of the header), and when. */
export interface Target {
  readonly tenantId: string;
  readonly id: string;
  readonly ifMatch: (currentEtag: string) => boolean;
  readonly at: string;
}

/** The operations the resource API has for every kind (Endpoints: update annotations, update labels, delete, restore). */
export type SharedOperation =
  | { readonly type: 'UpdateAnnotations'; readonly data: Target & { readonly annotations: StringMap } }
  | { readonly type: 'UpdateLabels'; readonly data: Target & { readonly labels: StringMap } }
  | { readonly type: 'Delete'; readonly data: Target }
  | { readonly type: 'Restore'; readonly data: Target };

/** A kind's own change of an existing resource (publish a schema, update a draft), decided once the shared rules allow a change. */
export interface OwnOperation {
  readonly type: string;
  readonly data: Target;
}

/** A kind's creation (create a draft, import a credential...): the facts of its first event, and when. */
export interface Creation {
  readonly type: string;
  readonly data: { readonly at: string };
}

/** An operation without the resource it names: what a route decides before the target is known. */
export type Change<C extends OwnOperation> = C extends unknown ? { readonly type: C['type']; readonly data: Omit<C['data'], keyof Target> } : never;

export type ResourceError =
  | { readonly _tag: 'ResourceExists' }
  | { readonly _tag: 'NotFound' }
  | { readonly _tag: 'PreconditionFailed' }
  | { readonly _tag: 'Conflict'; readonly reason: 'deleted' | 'not_deleted' | 'revision_limit' | 'frozen' };

/**
 * Whether a change may be made to `current` (`restoring`: a restore, which needs a deleted
 * resource; every other change needs a live one). Order matters, see above.
 */
export const admitsChange = (
  current: Envelope | undefined,
  target: Target,
  restoring: boolean,
  frozen?: (envelope: Envelope) => boolean,
): Either<ResourceError, Envelope> => {
  if (!current || current.tenantId !== target.tenantId) return left({ _tag: 'NotFound' });
  if (!target.ifMatch(etagOf(current.id, current.revision))) return left({ _tag: 'PreconditionFailed' });
  if (frozen?.(current)) return left({ _tag: 'Conflict', reason: 'frozen' });
  const deleted = current.deletedAt !== null;
  if (restoring ? !deleted : deleted) return left({ _tag: 'Conflict', reason: restoring ? 'not_deleted' : 'deleted' });
  if (current.revision >= MAX_REVISION) return left({ _tag: 'Conflict', reason: 'revision_limit' });
  return right(current);
};

/** Every kind's state: nothing yet, or the resource's envelope at the stream's last revision. */
export type ResourceState = { readonly status: 'none' } | { readonly status: 'exists'; readonly resource: Envelope };

export const envelopeOf = (state: ResourceState): Envelope | undefined => (state.status === 'none' ? undefined : state.resource);

/**
 * The four events every kind records for the shared operations, made once for a kind: named
 * `<prefix>AnnotationsUpdated`, `<prefix>LabelsUpdated`, `<prefix>Deleted`, `<prefix>Restored`,
 * the resource's id under `idField` (`ApiKeyDeleted {keyId, deletedAt}`). Their data is written
 * id first, then the change, then when: the order the streams have always held.
 */
export const sharedEvents = <P extends string, I extends string>(prefix: P, idField: I) => {
  const types = {
    annotations: `${prefix}AnnotationsUpdated` as const,
    labels: `${prefix}LabelsUpdated` as const,
    deleted: `${prefix}Deleted` as const,
    restored: `${prefix}Restored` as const,
  };
  const id = { [idField]: t.string } as { readonly [K in I]: t.StringC };
  const annotated = eventCodec(types.annotations, t.type({ ...id, annotations: StringMap, updatedAt: t.string }));
  const labelled = eventCodec(types.labels, t.type({ ...id, labels: StringMap, updatedAt: t.string }));
  const deleted = eventCodec(types.deleted, t.type({ ...id, deletedAt: t.string }));
  const restored = eventCodec(types.restored, t.type({ ...id, restoredAt: t.string }));
  type Shared = t.TypeOf<typeof annotated> | t.TypeOf<typeof labelled> | t.TypeOf<typeof deleted> | t.TypeOf<typeof restored>;
  /** One of the four, by its type (the events come decoded). */
  const of =
    <C extends t.Mixed>(codec: C) =>
    (event: Event): event is t.TypeOf<C> =>
      event.type === codec.name;
  const isAnnotated = of(annotated);
  const isLabelled = of(labelled);
  const isDeleted = of(deleted);
  const withId = (value: string) => ({ [idField]: value }) as { readonly [K in I]: string };
  return {
    /** Their codecs, for the kind's union of events. */
    codecs: [annotated, labelled, deleted, restored] as const,
    /** Whether an event of the kind is one of the four. */
    is: (event: Event): event is Shared => Object.values<string>(types).includes(event.type),
    /** What each of the four does to the envelope. */
    changeOf: (event: Shared): ResourceChange => {
      if (isAnnotated(event)) return { op: 'annotations', at: event.data.updatedAt, annotations: event.data.annotations };
      if (isLabelled(event)) return { op: 'labels', at: event.data.updatedAt, labels: event.data.labels };
      if (isDeleted(event)) return { op: 'deleted', at: event.data.deletedAt };
      return { op: 'restored', at: event.data.restoredAt };
    },
    /** The four for a resource, for resourceKind. */
    events: {
      annotations: (resourceId: string, annotations: StringMap, updatedAt: string): Shared => ({ type: types.annotations, data: { ...withId(resourceId), annotations, updatedAt } }),
      labels: (resourceId: string, labels: StringMap, updatedAt: string): Shared => ({ type: types.labels, data: { ...withId(resourceId), labels, updatedAt } }),
      deleted: (resourceId: string, deletedAt: string): Shared => ({ type: types.deleted, data: { ...withId(resourceId), deletedAt } }),
      restored: (resourceId: string, restoredAt: string): Shared => ({ type: types.restored, data: { ...withId(resourceId), restoredAt } }),
    },
  };
};

/** The events a kind's stream records for the shared operations. */
export interface SharedEventsOf<E> {
  readonly annotations: (id: string, annotations: StringMap, at: string) => E;
  readonly labels: (id: string, labels: StringMap, at: string) => E;
  readonly deleted: (id: string, at: string) => E;
  readonly restored: (id: string, at: string) => E;
}

/** What a kind names; the rules are resourceKind's. */
export interface KindDefinition<E extends Event, Create extends Creation, Own extends OwnOperation> {
  readonly category: string;
  readonly codec: t.Decoder<unknown, E>;
  /** What each event does to the envelope (the read model folds the same). */
  readonly changeOf: (event: E) => ResourceChange;
  /** The kind's creation command, and the first event it records. */
  readonly create: { readonly type: Create['type']; readonly created: (command: Create) => E };
  /** The events the kind's stream records for the shared operations (`sharedEvents(...).events`). */
  readonly shared: SharedEventsOf<E>;
  /** The event of each of the kind's own operations, on the current envelope. */
  readonly own?: (command: Own, current: Envelope) => E;
  /** When the kind takes no more changes (a published schema). */
  readonly frozen?: (envelope: Envelope) => boolean;
}

export type KindCommand<Create extends Creation, Own extends OwnOperation> = Create | SharedOperation | Own;

/** Any kind's commands. */
export type AnyKindCommand = KindCommand<Creation, OwnOperation>;

/** A shared or own operation without its target: what a route asks for. */
export type AnyChange = Change<SharedOperation> | Change<OwnOperation>;

export interface ResourceDecider<E extends Event, Command, DomainError = ResourceError> extends Decider<Command, ResourceState, E, DomainError> {
  readonly envelopeOf: (state: ResourceState) => Envelope | undefined;
}

const SHARED: ReadonlySet<string> = new Set<SharedOperation['type']>(['UpdateAnnotations', 'UpdateLabels', 'Delete', 'Restore']);
const isShared = (command: { readonly type: string }): command is SharedOperation => SHARED.has(command.type);

/** A kind's decider: its creation once, then the shared operations and its own, under the shared rules. */
export const resourceKind = <E extends Event, Create extends Creation, Own extends OwnOperation = never>(
  kind: KindDefinition<E, Create, Own>,
): ResourceDecider<E, KindCommand<Create, Own>> => ({
  category: kind.category,
  codec: kind.codec,
  initialState: { status: 'none' },
  evolve: (state, event) => ({ status: 'exists', resource: applyChange(envelopeOf(state), kind.changeOf(event)) }),
  envelopeOf,
  decide: (command, state) => {
    const current = envelopeOf(state);
    if (command.type === kind.create.type) return current ? left({ _tag: 'ResourceExists' }) : right([kind.create.created(command as Create)]);
    const change = command as SharedOperation | Own;
    const admitted = admitsChange(current, change.data, change.type === 'Restore', kind.frozen);
    if (isLeft(admitted)) return admitted;
    const { id, at } = change.data;
    if (!isShared(change)) {
      if (!kind.own) throw new Error(`${kind.category}: an operation of a kind that has none (${change.type})`);
      return right([kind.own(change, admitted.right)]);
    }
    switch (change.type) {
      case 'UpdateAnnotations':
        return right([kind.shared.annotations(id, change.data.annotations, at)]);
      case 'UpdateLabels':
        return right([kind.shared.labels(id, change.data.labels, at)]);
      case 'Delete':
        return right([kind.shared.deleted(id, at)]);
      case 'Restore':
        return right([kind.shared.restored(id, at)]);
    }
  },
});
