// A draft's personal data (its values and meta): the wire shapes both API lines write them in, and
// their sealing with the draft's data key (streams/draft.ts keeps only the sealed value). Shared
// by the drafts kind (src/resources/drafts.ts) and its use cases (createDraft.ts, updateDraft.ts,
// exportDraft.ts).
import * as t from 'io-ts';
import { sealedFor, sealedPurpose } from '../../streams/dataKey.js';
import { JsonArray, JsonObject, JsonValue } from '../../streams/resource.js';
import { openFor, type DataKey } from '../crypto/dataKeys.js';
import type { Json } from '../eventstore/port.js';
import { IsoDateTime } from '../http/codecs.js';
import { claimValue } from './verifiableCredential.js';

export const Uri = t.refinement(t.string, (s) => URL.canParse(s), 'a URI');
// Exact: members the API does not define are dropped, never stored (they would be sealed and echoed back).
const Meta = t.exact(t.partial({ subject: t.string, valid_from: IsoDateTime, valid_until: IsoDateTime }));
/** A value as the 0.38 line writes it. */
export const PlainValue = t.union([t.string, t.number, t.boolean, t.null, JsonArray, JsonObject]);
/** A value as the 0.40 line writes it, its kind matching the value. */
export const KindedValue = t.refinement(
  t.type({ kind: t.keyof({ STRING: null, NUMBER: null, BOOLEAN: null, ARRAY: null, OBJECT: null, NULL: null }), value: PlainValue }),
  (v) => claimValue(v.value as Json).kind === v.kind,
  'a {kind, value} whose value is of that kind',
);
const Ref = t.type({ digest_multibase: t.string, resource_id: t.string });
/** The members of a draft's data that both lines and both operations (create, update) take. */
export const Common = {
  type: t.array(t.string),
  meta: Meta,
  linked_credential_refs: t.array(Ref),
  linked_draft_refs: t.array(t.type({ resource_id: t.string })),
  json_ld_vocabs: t.array(Uri),
  vcdm_json_schemas: t.array(Uri),
};

export type Values = { [claim: string]: { kind: string; value: Json } };
/** The draft's personal data: its values and meta, sealed with the draft's data key. */
const Private = t.type({ values: t.record(t.string, t.type({ kind: t.string, value: JsonValue })), meta: Meta });
export type Private = t.TypeOf<typeof Private>;
export const DRAFT_VALUES = sealedPurpose('draft-values', Private);
const SealedValues = sealedFor(DRAFT_VALUES);

/** Values as the request's line writes them, in the stored `{kind, value}` shape. */
export const kinded = (values: Record<string, unknown> | undefined): Values | undefined =>
  values === undefined
    ? undefined
    : Object.fromEntries(Object.entries(values).map(([name, v]) => [name, typeof v === 'object' && v !== null && 'kind' in v ? (v as { kind: string; value: Json }) : claimValue(v as Json)]));

export const openPrivate = (key: DataKey | undefined, sealed: Json | undefined): Private =>
  // A destroyed key (or none) leaves the draft without its personal data, not broken.
  key && SealedValues.is(sealed) ? openFor(key, DRAFT_VALUES, sealed) : { values: {}, meta: {} };
