// Stream category `schema`: one stream per credential schema of the resource API,
// `schema-<schema id>`. Every event is one revision of its envelope (streams/resource.ts).
// Publishing makes the schema public at a URL and immutable: nothing follows `SchemaPublished`.
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { eventCodec } from './event.js';
import { JsonObject, sharedEvents, StringMap, resourceKind, type ResourceChange, type Target } from './resource.js';

export const category = 'schema';
export const schemaStream = (schemaId: string): string => streamName(category, schemaId);

export const SCHEMA_KIND = { name: 'schema', version: 1 } as const;

/** A ClaimsSchema: a JSON object describing the claims of a credential; kept as given. */
export const ClaimsSchema = JsonObject;

export const SchemaCreated = eventCodec(
  'SchemaCreated',
  t.type({
    schemaId: t.string,
    tenantId: t.string,
    slug: t.string,
    version: t.string,
    schema: ClaimsSchema,
    annotations: StringMap,
    labels: StringMap,
    createdAt: t.string,
  }),
);
/** `url` is where the public listener serves the schema. */
export const SchemaPublished = eventCodec('SchemaPublished', t.type({ schemaId: t.string, url: t.string, publishedAt: t.string }));

/** The resource API's shared changes: SchemaAnnotationsUpdated, SchemaLabelsUpdated, SchemaDeleted, SchemaRestored, each `{schemaId, ...}` (streams/resource.ts). */
const shared = sharedEvents('Schema', 'schemaId');

/** Every event a schema stream can hold. */
export const SchemaEvent = t.union([SchemaCreated, SchemaPublished, ...shared.codecs]);
export type SchemaEvent = t.TypeOf<typeof SchemaEvent>;

export const schemaResourceChange = (event: SchemaEvent): ResourceChange => {
  if (shared.is(event)) return shared.changeOf(event);
  switch (event.type) {
    case 'SchemaCreated': {
      const d = event.data;
      return {
        op: 'created',
        id: d.schemaId,
        tenantId: d.tenantId,
        kind: SCHEMA_KIND,
        at: d.createdAt,
        annotations: d.annotations,
        labels: d.labels,
        data: { slug: d.slug, version: d.version, schema: d.schema, published_at: null, url: null },
      };
    }
    case 'SchemaPublished':
      return { op: 'data', at: event.data.publishedAt, data: { published_at: event.data.publishedAt, url: event.data.url } };
  }
};

type Created = t.TypeOf<typeof SchemaCreated>['data'];

/** POST /schemas. */
export type CreateSchema = { readonly type: 'CreateSchema'; readonly data: Omit<Created, 'createdAt'> & { readonly at: string } };
/** PATCH /schemas/{id}/publish: served at `url` from then on. */
export type PublishSchema = { readonly type: 'PublishSchema'; readonly data: Target & { readonly url: string } };

const isPublished = (data: { readonly [key: string]: unknown }): boolean => typeof data['published_at'] === 'string';

/** The schema kind's rules: created once, then the changes every kind shares and publishing (streams/resource.ts); once published it is frozen (every change 409). */
export const schema = resourceKind<SchemaEvent, CreateSchema, PublishSchema>({
  category,
  codec: SchemaEvent,
  changeOf: schemaResourceChange,
  create: { type: 'CreateSchema', created: ({ data: { at, ...created } }) => ({ type: 'SchemaCreated', data: { ...created, createdAt: at } }) },
  shared: shared.events,
  own: ({ data: { id, url, at } }) => ({ type: 'SchemaPublished', data: { schemaId: id, url, publishedAt: at } }),
  frozen: (envelope) => isPublished(envelope.data),
});
