// The console's list parameters (`limit`, `after`, `from`, `until`, a status filter), checked at
// the edge: each bad one named in a 400, nothing read.
import type { Context } from 'koa';
import { decodeCursor, type Cursor } from '../../projections/keysetPage.js';
import { HttpError, invalidValues, type FieldError } from '../http/problem.js';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

export interface ListQuery {
  readonly limit: number;
  readonly after?: Cursor;
  readonly from?: string;
  readonly until?: string;
  readonly filter?: string;
}

const single = (ctx: Context, name: string): string | undefined => {
  const value = ctx.query[name];
  return Array.isArray(value) ? value[value.length - 1] : value;
};

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z$/;

/** Reads the list parameters; `filterName` is the query parameter naming a status, one of `allowed`. */
export const listQuery = (ctx: Context, filterName: string, allowed: readonly string[]): ListQuery => {
  const errors: FieldError[] = [];
  const limitText = single(ctx, 'limit');
  const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    errors.push({ location: 'query.limit', message: `expected an integer from 1 to ${MAX_LIMIT}`, value: limitText });
  }
  const afterText = single(ctx, 'after');
  const after = afterText === undefined ? undefined : decodeCursor(afterText);
  if (afterText !== undefined && after === undefined) errors.push({ location: 'query.after', message: 'expected the `next` of a previous page', value: afterText });
  const instant = (name: 'from' | 'until'): string | undefined => {
    const text = single(ctx, name);
    if (text === undefined || text === '') return undefined;
    if (!ISO_INSTANT.test(text) || Number.isNaN(Date.parse(text))) {
      errors.push({ location: `query.${name}`, message: 'expected an instant such as 2026-01-31T12:00:00Z', value: text });
      return undefined;
    }
    return new Date(text).toISOString();
  };
  const from = instant('from');
  const until = instant('until');
  const filterText = single(ctx, filterName);
  const filter = filterText === undefined || filterText === '' ? undefined : filterText;
  if (filter !== undefined && !allowed.includes(filter)) {
    errors.push({ location: `query.${filterName}`, message: `expected one of ${allowed.join(', ')}`, value: filter });
  }
  if (errors.length > 0) throw new HttpError(invalidValues(errors));
  return {
    limit,
    ...(after !== undefined ? { after } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(until !== undefined ? { until } : {}),
    ...(filter !== undefined ? { filter } : {}),
  };
};
