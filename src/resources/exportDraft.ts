// Exporting a draft (the use case, no HTTP): the draft at one revision as an unsigned credential
// (W3C data model 1.1, JSON-LD), its values opened with the draft's data key.
import * as t from 'io-ts';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { findRevision, type ResourceAddress } from '../../projections/resources.js';
import { draftKeyOwner } from '../../streams/draft.js';
import type { DataKeys } from '../crypto/dataKeys.js';
import type { Json } from '../eventstore/port.js';
import { IsoDateTime } from '../http/codecs.js';
import type { Sqlite } from '../sqlite/connection.js';
import { openPrivate, Uri } from './draftValues.js';

const V1_CONTEXT = 'https://www.w3.org/2018/credentials/v1';

/** `POST /drafts/{id}/revisions/{revision}/export`: the request's body. */
export const ExportBody = t.intersection([t.type({ issuer: Uri }), t.partial({ valid_from: IsoDateTime, valid_until: IsoDateTime })]);
export type ExportRequest = t.TypeOf<typeof ExportBody>;

export interface ExportDraftDeps {
  readonly db: Sqlite;
  readonly dataKeys: Pick<DataKeys, 'find'>;
  readonly now: () => Date;
}

const strings = (value: Json | undefined): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** The draft at `revision` as an unsigned credential issued by `request.issuer`; NotFound when the tenant has no such draft revision. */
export const exportDraft = async (deps: ExportDraftDeps, address: ResourceAddress, revision: number, request: ExportRequest): Promise<Either<{ readonly _tag: 'NotFound' }, Json>> => {
  const envelope = findRevision(deps.db, address, revision);
  if (!envelope) return left({ _tag: 'NotFound' });
  const d = envelope.data;
  const { values, meta } = openPrivate(await deps.dataKeys.find(draftKeyOwner(envelope.id)), d['sealed']);
  const types = strings(d['type']).filter((type) => type !== 'VerifiableCredential');
  const validFrom = request.valid_from ?? meta.valid_from ?? deps.now().toISOString();
  const validUntil = request.valid_until ?? meta.valid_until;
  const schemas = [...(typeof d['meta_schema'] === 'string' ? [d['meta_schema']] : []), ...strings(d['vcdm_json_schemas'])];
  return right({
    '@context': [V1_CONTEXT, ...strings(d['json_ld_vocabs'])],
    type: ['VerifiableCredential', ...types],
    issuer: request.issuer,
    issuanceDate: validFrom,
    ...(validUntil ? { expirationDate: validUntil } : {}),
    credentialSubject: { ...(meta.subject ? { id: meta.subject } : {}), ...Object.fromEntries(Object.entries(values).map(([name, v]) => [name, v.value])) },
    ...(schemas.length > 0 ? { credentialSchema: schemas.map((id) => ({ id, type: 'JsonSchema' })) } : {}),
  });
};
