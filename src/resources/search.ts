// `POST /{kind}/search`: filter items (ANDed, as are the fields inside one item), sort items and
// keyset pagination over the `resources` read model. Deleted resources are left out unless a
// filter item asks about `deleted_at`.
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { cursorLength, searchResources, type DataCriterion, type ResourceSearch, type SortKey } from '../../projections/resourceSearch.js';
import type { Json } from '../eventstore/port.js';
import { readJson } from '../http/body.js';
import { integerFromString, IsoDateTime, Uuid } from '../http/codecs.js';
import { HttpError, invalidRequest } from '../http/problem.js';
import { decode } from '../http/validate.js';
import type { Sqlite, SqlValue } from '../sqlite/connection.js';
import { principalOf } from '../tenancy/authenticate.js';
import { JSON_LIMIT } from './context.js';
import { wireEnvelope } from './envelope.js';
import type { Envelope } from '../../streams/resource.js';

/** A `data` filter field: an operator over a member, or envelope filters over linked resources. */
export type DataFilter =
  | 'EQUAL_STRING'
  | 'EQUAL_INTEGER'
  | 'BETWEEN_DATE_TIME'
  /** `{operator: IN, values}` on an array member: any element among the values. */
  | 'IN_STRINGS'
  /** Envelope filters on the resources an array of `{resource_id}` refs points to. */
  | { readonly linked: string };

/** How a kind's `data` can be searched: filter fields and sort fields, by their wire names. */
export interface DataSearch {
  readonly filters: Readonly<Record<string, DataFilter>>;
  /** Sort field name (`DATA_EXPIRATION`) -> `data` member. */
  readonly sorts: Readonly<Record<string, string>>;
}

/** A kind searched by its envelope alone. */
export const ENVELOPE_ONLY: DataSearch = { filters: {}, sorts: {} };

/** Most filter items, and most sort items, one search takes. */
export const MAX_SEARCH_ITEMS = 4;
/** Page size of `limit`: its bounds and default. */
export const SEARCH_LIMIT = { min: 1, max: 1000, default: 100 } as const;

const Equal = <C extends t.Mixed>(value: C) => t.type({ operator: t.literal('EQUAL'), value });
const Between = t.type({ operator: t.literal('BETWEEN'), left: IsoDateTime, right: IsoDateTime });
const In = t.type({ operator: t.literal('IN'), values: t.array(t.string) });
const KeyValue = t.array(t.type({ operator: t.literal('EQUAL'), key: t.string, value: t.string }));

/** An array of at most 4 items; failures inside an item keep their own location and message. */
const atMost4 = <C extends t.Mixed>(item: C) => {
  const array = t.array(item);
  return new t.Type<t.TypeOf<C>[], t.OutputOf<C>[], unknown>(
    array.name,
    (u): u is t.TypeOf<C>[] => array.is(u) && u.length <= MAX_SEARCH_ITEMS,
    (input, context) =>
      Array.isArray(input) && input.length > MAX_SEARCH_ITEMS ? t.failure(input, context, `expected an array of at most ${MAX_SEARCH_ITEMS} items`) : array.validate(input, context),
    array.encode,
  );
};

/**
 * A filter object whose every member the codec knows: a misspelt or unsupported field would
 * otherwise filter nothing and return everything.
 */
const onlyKnown = <C extends t.InterfaceType<t.Props> | t.PartialType<t.Props> | t.IntersectionType<t.Mixed[]>>(codec: C) => {
  const known = new Set(propsOf(codec));
  return new t.Type<t.TypeOf<C>, t.OutputOf<C>, unknown>(
    codec.name,
    codec.is,
    (input, context) => {
      const unknown = typeof input === 'object' && input !== null ? Object.keys(input).filter((key) => !known.has(key)) : [];
      // The inner codec stands in this place, so failures inside it are located as its own.
      const last = context[context.length - 1];
      if (unknown.length === 0) return codec.validate(input, last ? [...context.slice(0, -1), { ...last, type: codec }] : context);
      return t.failures(unknown.map((key) => ({ value: (input as Record<string, unknown>)[key], context: [...context, { key, type: codec, actual: input }], message: 'not a filter field of this kind' })));
    },
    codec.encode,
  );
};

const propsOf = (codec: t.Mixed): string[] => {
  if (codec instanceof t.InterfaceType || codec instanceof t.PartialType) return Object.keys(codec.props as t.Props);
  if (codec instanceof t.IntersectionType) return (codec.types as t.Mixed[]).flatMap(propsOf);
  return [];
};

/** The filter fields every kind has. */
const EnvelopeFields = t.partial({
  annotations: KeyValue,
  labels: KeyValue,
  created_at: Between,
  modified_at: Between,
  deleted_at: Between,
  etag: Equal(t.string),
  id: Equal(Uuid),
  revision: Equal(t.Int),
});
/** Envelope fields alone: a nested `linked_credentials` / `linked_files` filter. */
const EnvelopeFilter = onlyKnown(EnvelopeFields);
type EnvelopeFilter = t.TypeOf<typeof EnvelopeFields>;

/** Sort fields every kind has, by wire name. */
export const ENVELOPE_SORTS: Readonly<Record<string, SortKey>> = {
  ID: { column: 'id' },
  CREATED_AT: { column: 'created_at' },
  MODIFIED_AT: { column: 'modified_at' },
  DELETED_AT: { column: 'deleted_at' },
  REVISION: { column: 'revision' },
};

const filterCodec = (filter: DataFilter): t.Mixed => {
  if (typeof filter === 'object') return EnvelopeFilter;
  switch (filter) {
    case 'EQUAL_STRING':
      return Equal(t.string);
    case 'EQUAL_INTEGER':
      return Equal(t.Int);
    case 'BETWEEN_DATE_TIME':
      return Between;
    case 'IN_STRINGS':
      return In;
  }
};

/** The criterion a decoded `data` filter field asks for. */
const dataCriterion = (filter: DataFilter, member: string, operand: unknown): DataCriterion => {
  if (typeof filter === 'object') return { member: filter.linked, linked: operand as EnvelopeFilter };
  switch (filter) {
    case 'BETWEEN_DATE_TIME':
      return { member, between: operand as t.TypeOf<typeof Between> };
    case 'IN_STRINGS':
      return { member, anyOf: (operand as t.TypeOf<typeof In>).values };
    case 'EQUAL_STRING':
    case 'EQUAL_INTEGER':
      return { member, equals: (operand as { value: string | number }).value };
  }
};

export interface Searcher {
  (ctx: Context, db: Sqlite): Promise<void>;
}

const Limit = integerFromString(SEARCH_LIMIT.min, SEARCH_LIMIT.max, `an integer ${SEARCH_LIMIT.min}-${SEARCH_LIMIT.max}`);
const MAX_CURSOR = 4096;

export interface SearchOptions {
  /** Narrows the search to a subset of the kind (published schemas). */
  readonly only?: DataCriterion;
  /** The envelope as the kind shows it to this request. */
  readonly render?: (ctx: Context, envelope: Envelope) => Promise<Envelope>;
}

export const searcher = (kindName: string, data: DataSearch, { only, render }: SearchOptions = {}): Searcher => {
  const FilterItem = onlyKnown(
    t.intersection([
      EnvelopeFields,
      t.partial({ data: onlyKnown(t.partial(Object.fromEntries(Object.entries(data.filters).map(([name, filter]) => [name, filterCodec(filter)])))) }),
    ]),
  );
  const sortFields: Record<string, SortKey> = {
    ...ENVELOPE_SORTS,
    ...Object.fromEntries(Object.entries(data.sorts).map(([field, member]) => [field, { member }])),
  };
  const SortItem = t.type({
    field: t.keyof(Object.fromEntries(Object.keys(sortFields).map((f) => [f, null])) as Record<string, null>),
    order: t.keyof({ ASC: null, DESC: null }),
  });
  const SearchBody = t.partial({ filter: atMost4(FilterItem), sort: atMost4(SortItem) });

  const criteriaOf = (item: t.TypeOf<typeof FilterItem>): ResourceSearch['criteria'][number] => ({
    envelope: item,
    data: Object.entries(item.data ?? {}).flatMap(([member, operand]) => {
      const filter = data.filters[member];
      return filter && operand !== undefined ? [dataCriterion(filter, member, operand)] : [];
    }),
  });

  return async (ctx, db) => {
    const body = decode(SearchBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    const limit = ctx.query['limit'] === undefined ? SEARCH_LIMIT.default : decode(Limit, ctx.query['limit'], 'query.limit');
    const filters = body.filter ?? [];
    const sort = (body.sort ?? []).map((s) => ({ key: sortFields[s.field]!, descending: s.order === 'DESC' }));
    // A cursor belongs to one query: reusing it with another filter or sort is refused.
    const query = createHash('sha256').update(JSON.stringify([kindName, filters, body.sort ?? []])).digest('base64url').slice(0, 16);
    const cursorText = ctx.query['cursor'];
    let after: readonly SqlValue[] | undefined;
    if (cursorText !== undefined) {
      const values = readCursor(cursorText, query, cursorLength({ sort }));
      if (isLeft(values)) {
        const value = values.left.cursor;
        throw new HttpError(invalidRequest('The cursor does not belong to this search.', [{ location: 'query.cursor', message: 'expected a next_cursor of this search', value }]));
      }
      after = values.right;
    }
    const page = searchResources(db, { tenantId: principalOf(ctx).tenantId, kind: kindName, criteria: filters.map(criteriaOf), only, sort, after, limit });
    const items = await Promise.all(page.envelopes.map(async (envelope) => wireEnvelope(render ? await render(ctx, envelope) : envelope)));
    const response: { items: Json[]; next_cursor?: string } = { items };
    if (page.next) response.next_cursor = Buffer.from(JSON.stringify({ q: query, v: page.next })).toString('base64url');
    ctx.body = response;
  };
};

/** A `cursor` that is not a `next_cursor` of this search (its query and sort), as given. */
type ForeignCursor = { readonly _tag: 'ForeignCursor'; readonly cursor: unknown };

const foreignCursor = (cursor: unknown): Either<ForeignCursor, never> => left({ _tag: 'ForeignCursor', cursor });

/** The sort values of the last row a `next_cursor` of this search names. */
const readCursor = (text: string | string[], query: string, length: number): Either<ForeignCursor, readonly SqlValue[]> => {
  if (typeof text !== 'string' || text.length > MAX_CURSOR) return foreignCursor(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return foreignCursor(text);
  }
  const cursor = parsed as { q?: unknown; v?: unknown };
  const values = cursor.v;
  if (cursor.q !== query || !Array.isArray(values) || values.length !== length || !values.every((v) => typeof v === 'string' || typeof v === 'number')) {
    return foreignCursor(text);
  }
  return right(values as SqlValue[]);
};
