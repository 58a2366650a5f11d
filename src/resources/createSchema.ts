// Creating a schema (the use case, no HTTP): its wire schema, and the creation command of a new
// schema, refused while a live schema of the tenant has the same slug and version.
import { randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { liveSchemaExists } from '../../projections/resources.js';
import { StringMap } from '../../streams/resource.js';
import { ClaimsSchema, type CreateSchema } from '../../streams/schema.js';
import { withMessage } from '../http/codecs.js';
import type { Sqlite } from '../sqlite/connection.js';

const Slug = withMessage(t.refinement(t.string, (s) => /^[a-z0-9][a-z0-9-]{0,63}$/.test(s)), 'expected 1-64 characters of a-z, 0-9 and -');
const Version = withMessage(t.refinement(t.string, (s) => /^[A-Za-z0-9][A-Za-z0-9.+-]{0,31}$/.test(s)), 'expected 1-32 characters of A-Z, a-z, 0-9, ., + and -');
/** `POST /schemas`: the request's body. */
export const CreateBody = t.intersection([
  t.type({ data: t.type({ slug: Slug, version: Version, schema: ClaimsSchema }) }),
  t.partial({ annotations: StringMap, labels: StringMap }),
]);

export interface CreateSchemaRequest {
  readonly tenantId: string;
  readonly data: t.TypeOf<typeof CreateBody>['data'];
  readonly annotations: StringMap;
  readonly labels: StringMap;
  readonly at: string;
}

/** A live schema of the tenant has the slug and version: 409. */
export type SchemaExists = { readonly _tag: 'SchemaExists' };

/** The creation of a new schema; SchemaExists while a live schema of the tenant has its slug and version. */
export const createSchema = (db: Sqlite, request: CreateSchemaRequest): Either<SchemaExists, CreateSchema> => {
  const { tenantId, data } = request;
  if (liveSchemaExists(db, tenantId, data.slug, data.version)) return left({ _tag: 'SchemaExists' });
  return right({
    type: 'CreateSchema',
    data: { schemaId: randomUUID(), tenantId, ...data, annotations: request.annotations, labels: request.labels, at: request.at },
  });
};
