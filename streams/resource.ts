// The versioned-resource envelope every kind of the resource API shares (spec/resource-api.md,
// "Common resource envelope"). Each kind keeps its own stream category (`apikey-<id>` for API
// keys), so an auditor reads one module per kind; this module holds what they have in common:
// the envelope, the changes a kind's events map to, and the fold from changes to envelope.
// Every event of a kind's stream is one revision: revision = stream revision + 1.
import { createHash } from 'node:crypto';
import * as t from 'io-ts';
import type { Json } from './kernel.js';

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
  (u): u is ResourceData => typeof u === 'object' && u !== null && !Array.isArray(u),
  (u, c) => (typeof u === 'object' && u !== null && !Array.isArray(u) ? t.success(u as ResourceData) : t.failure(u, c)),
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
