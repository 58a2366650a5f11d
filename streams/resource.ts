// The versioned-resource envelope every kind of the resource API shares (the resource API
// specification, "Common resource envelope"). Each kind keeps its own stream category (`apikey-<id>` for API
// keys), so an auditor reads one module per kind; this module holds what they have in common:
// the envelope, the changes a kind's events map to, and the fold from changes to envelope.
// Every event of a kind's stream is one revision: revision = stream revision + 1.
import { createHash } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { isRecord, type Json } from './kernel.js';
import type { Decider, Event, StreamContract } from './event.js';

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
  | { readonly op: 'data'; readonly at: string; readonly data: ResourceData };

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
  }
};

/**
 * The strong entity tag of a resource revision: opaque, different for every revision, and
 * computable from the stream alone, so the write side and every read model agree on it.
 */
export const etagOf = (id: string, revision: number): string =>
  `"${createHash('sha256').update(`${id}\n${revision}`).digest('base64url').slice(0, 27)}"`;

// The changes every kind shares, as one decider per kind (resourceDecider): a kind names the events
// its stream records for them, and the rules (who may change what, when) are here once.

export type Update =
  | { readonly op: 'annotations'; readonly annotations: StringMap }
  | { readonly op: 'labels'; readonly labels: StringMap }
  | { readonly op: 'delete' }
  | { readonly op: 'restore' }
  /** A kind-specific change of `data` (publishing a schema, patching a draft). */
  | { readonly op: 'data'; readonly data: ResourceData };

export type ResourceError =
  | { readonly _tag: 'ResourceExists' }
  | { readonly _tag: 'NotFound' }
  | { readonly _tag: 'PreconditionFailed' }
  | { readonly _tag: 'Conflict'; readonly reason: 'deleted' | 'not_deleted' | 'revision_limit' | 'frozen' };

export interface UpdateRequest {
  readonly tenantId: string;
  readonly id: string;
  /** Whether the caller's If-Match names this etag (a pure test of the request's header). */
  readonly ifMatch: (currentEtag: string) => boolean;
  readonly update: Update;
  readonly at: string;
  readonly frozen?: (envelope: Envelope) => boolean;
}

/**
 * Whether the shared change may be made. Order matters: an unknown (or another tenant's) resource
 * is 404 whatever the etag; a stale etag is 412 before any state conflict is reported.
 */
export const decideUpdate = (current: Envelope | undefined, request: UpdateRequest): Either<ResourceError, Update> => {
  if (!current || current.tenantId !== request.tenantId) return left({ _tag: 'NotFound' });
  if (!request.ifMatch(etagOf(current.id, current.revision))) return left({ _tag: 'PreconditionFailed' });
  if (request.frozen?.(current)) return left({ _tag: 'Conflict', reason: 'frozen' });
  const deleted = current.deletedAt !== null;
  if (request.update.op === 'restore' ? !deleted : deleted) {
    return left({ _tag: 'Conflict', reason: request.update.op === 'restore' ? 'not_deleted' : 'deleted' });
  }
  if (current.revision >= MAX_REVISION) return left({ _tag: 'Conflict', reason: 'revision_limit' });
  return right(request.update);
};

/** The events a kind's stream records for the shared changes. */
export interface ResourceEvents<E> {
  readonly annotations: (id: string, annotations: StringMap, at: string) => E;
  readonly labels: (id: string, labels: StringMap, at: string) => E;
  readonly deleted: (id: string, at: string) => E;
  readonly restored: (id: string, at: string) => E;
  /** The kind's own change of `data`, for kinds that have one. */
  readonly data?: (id: string, data: ResourceData, at: string) => E;
}

export type ResourceCommand<E> =
  /** The kind's first event, built where its data is validated and sealed. */
  | { readonly type: 'CreateResource'; readonly data: { readonly created: E } }
  | { readonly type: 'UpdateResource'; readonly data: Omit<UpdateRequest, 'frozen'> };

export interface ResourceDecider<State, E extends Event> extends Decider<ResourceCommand<E>, State, E, ResourceError> {
  readonly envelopeOf: (state: State) => Envelope | undefined;
}

const eventFor = <E>(events: ResourceEvents<E>, id: string, update: Update, at: string): E => {
  switch (update.op) {
    case 'annotations':
      return events.annotations(id, update.annotations, at);
    case 'labels':
      return events.labels(id, update.labels, at);
    case 'delete':
      return events.deleted(id, at);
    case 'restore':
      return events.restored(id, at);
    case 'data':
      if (!events.data) throw new Error('a data change of a kind that has none');
      return events.data(id, update.data, at);
  }
};

/**
 * A kind's decider: created once (a second creation on the same stream is ResourceExists), then
 * the shared changes by decideUpdate; `frozen` says when the kind takes no more changes.
 */
export const resourceDecider = <State, E extends Event>(
  contract: StreamContract<State, E>,
  kind: {
    readonly envelopeOf: (state: State) => Envelope | undefined;
    readonly events: ResourceEvents<E>;
    readonly frozen?: (envelope: Envelope) => boolean;
  },
): ResourceDecider<State, E> => ({
  ...contract,
  envelopeOf: kind.envelopeOf,
  decide: (command, state) => {
    const current = kind.envelopeOf(state);
    if (command.type === 'CreateResource') {
      if (current) return left({ _tag: 'ResourceExists' });
      return right([command.data.created]);
    }
    const request = command.data;
    const decided = decideUpdate(current, { ...request, ...(kind.frozen ? { frozen: kind.frozen } : {}) });
    return isLeft(decided) ? decided : right([eventFor(kind.events, request.id, decided.right, request.at)]);
  },
});

