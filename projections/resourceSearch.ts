// Search over the `resources` read model (projections/resources.ts): criteria ANDed, a sort and
// keyset pagination. Criteria arrive typed; the SQL they become is written here only.
import type { Envelope } from '../streams/resource.js';
import type { SqlReader, SqlValue } from './projection.js';
import { envelopeOfRow, type ResourceRow } from './resources.js';

/** Timestamps as ISO 8601; compared after normalising to `toISOString()`, as they are stored. */
export interface Range {
  readonly left: string;
  readonly right: string;
}

export interface KeyValue {
  readonly key: string;
  readonly value: string;
}

/** Criteria on the envelope, of the searched resources or of the ones they link to. */
export interface EnvelopeCriteria {
  /** Every pair present. */
  readonly annotations?: readonly KeyValue[];
  readonly labels?: readonly KeyValue[];
  readonly created_at?: Range;
  readonly modified_at?: Range;
  readonly deleted_at?: Range;
  readonly etag?: { readonly value: string };
  readonly id?: { readonly value: string };
  readonly revision?: { readonly value: number };
}

/** A criterion on one member of `data`. */
export type DataCriterion =
  | { readonly member: string; readonly equals: string | number }
  | { readonly member: string; readonly between: Range }
  /** An array member with any element among the values. */
  | { readonly member: string; readonly anyOf: readonly string[] }
  /** An array of `{resource_id}` refs with a linked resource that meets the criteria. */
  | { readonly member: string; readonly linked: EnvelopeCriteria }
  | { readonly member: string; readonly present: true };

export type SortKey = { readonly column: 'id' | 'created_at' | 'modified_at' | 'deleted_at' | 'revision' } | { readonly member: string };

export interface ResourceSearch {
  readonly tenantId: string;
  readonly kind: string;
  /** Criteria met by every resource found, as many as given; deleted ones are left out unless one asks about `deleted_at`. */
  readonly criteria: readonly { readonly envelope: EnvelopeCriteria; readonly data: readonly DataCriterion[] }[];
  /** Narrows the search to a subset of the kind (published schemas), whatever the criteria. */
  readonly only?: DataCriterion;
  /** The order; ties are broken by id, in the direction of the last key. */
  readonly sort: readonly { readonly key: SortKey; readonly descending: boolean }[];
  /** The sort values of the last resource of the page before (a cursor): the page starts after it. */
  readonly after?: readonly SqlValue[];
  readonly limit: number;
}

export interface ResourcePage {
  readonly envelopes: readonly Envelope[];
  /** The sort values of the page's last resource when more follow: the next page's `after`. */
  readonly next: readonly SqlValue[] | undefined;
}

interface Condition {
  readonly sql: string;
  readonly params: readonly SqlValue[];
}

const dataPath = (table: string, member: string): string => `json_extract(${table}.data, '$.${member}')`;

const between = (expression: string, range: Range): Condition => ({
  sql: `(${expression} BETWEEN ? AND ?)`,
  params: [new Date(range.left).toISOString(), new Date(range.right).toISOString()],
});

/** Looked up in `resource_metadata` by index. */
const keyValues = (table: string, field: 'annotations' | 'labels', pairs: readonly KeyValue[]): Condition[] =>
  pairs.map((pair) => ({
    sql: `${table}.id IN (SELECT id FROM resource_metadata WHERE field = ? AND key = ? AND value = ?)`,
    params: [field, pair.key, pair.value],
  }));

/** Conditions on the envelope columns of `table` (the searched resources or linked ones). */
const envelopeConditions = (table: string, criteria: EnvelopeCriteria): Condition[] => [
  ...keyValues(table, 'annotations', criteria.annotations ?? []),
  ...keyValues(table, 'labels', criteria.labels ?? []),
  ...(criteria.created_at ? [between(`${table}.created_at`, criteria.created_at)] : []),
  ...(criteria.modified_at ? [between(`${table}.modified_at`, criteria.modified_at)] : []),
  ...(criteria.deleted_at ? [between(`${table}.deleted_at`, criteria.deleted_at)] : []),
  ...(criteria.etag ? [{ sql: `${table}.etag = ?`, params: [criteria.etag.value] }] : []),
  ...(criteria.id ? [{ sql: `${table}.id = ?`, params: [criteria.id.value.toLowerCase()] }] : []),
  ...(criteria.revision ? [{ sql: `${table}.revision = ?`, params: [criteria.revision.value] }] : []),
];

const all = (conditions: readonly Condition[]): Condition => ({
  sql: conditions.length === 0 ? '1' : conditions.map((c) => `(${c.sql})`).join(' AND '),
  params: conditions.flatMap((c) => c.params),
});

const dataCondition = (criterion: DataCriterion): Condition => {
  const { member } = criterion;
  if ('linked' in criterion) {
    const nested = all(envelopeConditions('linked', criterion.linked));
    return {
      sql: `EXISTS (SELECT 1 FROM json_each(resources.data, '$.${member}') AS ref
              JOIN resources AS linked ON linked.id = json_extract(ref.value, '$.resource_id') AND linked.tenant_id = resources.tenant_id
              WHERE ${nested.sql})`,
      params: nested.params,
    };
  }
  if ('between' in criterion) return between(dataPath('resources', member), criterion.between);
  if ('anyOf' in criterion) {
    const values = criterion.anyOf;
    return {
      sql: `EXISTS (SELECT 1 FROM json_each(resources.data, '$.${member}') AS element WHERE element.value IN (${values.map(() => '?').join(', ') || 'NULL'}))`,
      params: values,
    };
  }
  if ('present' in criterion) return { sql: `${dataPath('resources', member)} IS NOT NULL`, params: [] };
  return { sql: `${dataPath('resources', member)} = ?`, params: [criterion.equals] };
};

const sortExpression = (key: SortKey): string => {
  if ('member' in key) return `COALESCE(${dataPath('resources', key.member)}, '')`;
  return key.column === 'deleted_at' ? "COALESCE(resources.deleted_at, '')" : `resources.${key.column}`;
};

/** Rows strictly after the cursor's row in the sort order (a lexicographic keyset comparison). */
const after = (order: readonly { expression: string; descending: boolean }[], values: readonly SqlValue[]): Condition => {
  const alternatives: Condition[] = order.map((o, i) => ({
    sql: [...order.slice(0, i).map((p) => `${p.expression} = ?`), `${o.expression} ${o.descending ? '<' : '>'} ?`].join(' AND '),
    params: values.slice(0, i + 1),
  }));
  return { sql: alternatives.map((a) => `(${a.sql})`).join(' OR '), params: alternatives.flatMap((a) => a.params) };
};

/** How many sort values a cursor of `search` holds: one per sort key and the tie-break. */
export const cursorLength = (search: Pick<ResourceSearch, 'sort'>): number => search.sort.length + 1;

/** One page of the tenant's resources of one kind that meet the criteria, in the order asked. */
export const searchResources = (db: SqlReader, search: ResourceSearch): ResourcePage => {
  const order = [
    ...search.sort.map((s) => ({ expression: sortExpression(s.key), descending: s.descending })),
    // The tie-break follows the last sort's direction, so one index serves the whole order.
    { expression: 'resources.id', descending: search.sort[search.sort.length - 1]?.descending ?? false },
  ];
  const conditions: Condition[] = [
    { sql: 'resources.tenant_id = ? AND resources.kind = ?', params: [search.tenantId, search.kind] },
    ...(search.criteria.some((c) => c.envelope.deleted_at) ? [] : [{ sql: 'resources.deleted_at IS NULL', params: [] }]),
    ...(search.only ? [dataCondition(search.only)] : []),
    ...search.criteria.flatMap((c) => [...envelopeConditions('resources', c.envelope), ...c.data.map(dataCondition)]),
    ...(search.after ? [after(order, search.after)] : []),
  ];
  // With criteria, SQLite (which has no statistics here) would rather walk the sort's index and
  // test every row than find the few matching rows by the criteria's index and sort them: a unary
  // plus on the sort terms takes the sort's index out of its choice.
  const unindexed = search.criteria.length > 0 || search.only ? '+' : '';
  const rows = db.all<ResourceRow>(
    `SELECT *, ${order.map((o, i) => `${o.expression} AS sort_${i}`).join(', ')} FROM resources
       WHERE ${conditions.map((c) => `(${c.sql})`).join(' AND ')}
       ORDER BY ${order.map((o) => `${unindexed}${o.expression} ${o.descending ? 'DESC' : 'ASC'}`).join(', ')}
       LIMIT ?`,
    [...conditions.flatMap((c) => c.params), search.limit + 1],
  );
  const page = rows.slice(0, search.limit);
  const last = page[page.length - 1];
  return {
    envelopes: page.map(envelopeOfRow),
    next: rows.length > search.limit && last ? order.map((_, i) => last[`sort_${i}`] ?? null) : undefined,
  };
};
