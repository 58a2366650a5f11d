// The Digital Credentials Query Language (OpenID4VP 1.0, section 6) as this connector accepts it:
// SD-JWT VC (`dc+sd-jwt`) and ISO mdoc (`mso_mdoc`, Appendix B.2.3) credential queries, claim sets
// and credential sets, which may mix the formats. The codecs check
// shapes; `dcqlProblems` checks what io-ts cannot (unique ids, references between parts).
import * as t from 'io-ts';
import type { FieldError } from '../http/problem.js';
import { NonEmptyString, NonNegativeInt, withMessage } from '../http/codecs.js';
import { isRecord } from '../../streams/kernel.js';

/** An array with at least one element; element failures are reported at their own index. */
export const nonEmptyArray = <C extends t.Mixed>(item: C): t.Type<readonly t.TypeOf<C>[], readonly t.OutputOf<C>[], unknown> => {
  const array = t.readonlyArray(item);
  return new t.Type(
    `NonEmptyArray<${item.name}>`,
    (u): u is readonly t.TypeOf<C>[] => array.is(u) && u.length > 0,
    (u, c) => {
      const result = array.validate(u, c);
      if (result._tag === 'Right' && result.right.length === 0) return t.failure(u, c, 'expected a non-empty array');
      return result;
    },
    array.encode,
  );
};

// OpenID4VP 1.0 section 6.1: ids are non-empty strings of alphanumerics, `_` and `-`.
const Identifier = withMessage(
  t.refinement(t.string, (s) => /^[A-Za-z0-9_-]+$/.test(s), 'Identifier'),
  'expected a non-empty string of letters, digits, "_" and "-"',
);

/** A claims path element: a key, an array index, or null for "every element". */
const PathElement = withMessage(t.union([t.string, NonNegativeInt, t.null]), 'expected a string, a non-negative integer or null');

// Exact on both halves rather than around the intersection: unknown members are dropped before
// the query is sealed, and failures keep plain locations (`credentials[0].id`).
export const object = <R extends t.Props, O extends t.Props>(required: R, optional: O, name: string) =>
  t.intersection([t.exact(t.type(required)), t.exact(t.partial(optional))], name);

export const ClaimsQuery = object(
  { path: nonEmptyArray(PathElement) },
  { id: Identifier, values: nonEmptyArray(withMessage(t.union([t.string, t.Int, t.boolean]), 'expected a string, an integer or a boolean')) },
  'ClaimsQuery',
);
export type ClaimsQuery = t.TypeOf<typeof ClaimsQuery>;

export const TrustedAuthority = object(
  {
    // openid_federation needs federation resolution, which this connector does not do: refusing
    // it beats accepting a constraint it would not enforce. etsi_tl needs lotl mode (`dcqlProblems`).
    type: withMessage(t.keyof({ aki: null, etsi_tl: null }), 'expected aki or etsi_tl (openid_federation is not supported by this connector)'),
    // Checked per type in `dcqlProblems`: base64url key identifiers for aki, list URLs for etsi_tl.
    values: nonEmptyArray(withMessage(t.string, 'expected a string')),
  },
  {},
  'TrustedAuthority',
);
export type TrustedAuthority = t.TypeOf<typeof TrustedAuthority>;

const credentialQueryOptions = {
  multiple: t.boolean,
  claim_sets: nonEmptyArray(nonEmptyArray(Identifier)),
  require_cryptographic_holder_binding: t.boolean,
  trusted_authorities: nonEmptyArray(TrustedAuthority),
};

export const SdJwtVcQuery = object(
  {
    id: Identifier,
    format: t.literal('dc+sd-jwt'),
    meta: object({ vct_values: nonEmptyArray(NonEmptyString) }, {}, 'Meta'),
    // Required here although optional in DCQL: the connector discloses only what is asked for.
    claims: nonEmptyArray(ClaimsQuery),
  },
  credentialQueryOptions,
  'SdJwtVcQuery',
);
export type SdJwtVcQuery = t.TypeOf<typeof SdJwtVcQuery>;

/** An mdoc element: `[namespace, elementIdentifier]` (OpenID4VP 1.0, B.2.4). */
const isMdocClaimPath = (u: unknown): u is readonly [string, string] =>
  Array.isArray(u) && u.length === 2 && u.every((part) => typeof part === 'string' && part.length > 0);
const MdocClaimPath = new t.Type<readonly [string, string], readonly [string, string], unknown>(
  'MdocClaimPath',
  isMdocClaimPath,
  (u, c) => (isMdocClaimPath(u) ? t.success(u) : t.failure(u, c, 'expected [namespace, element identifier], two non-empty strings')),
  t.identity,
);

export const MdocClaimsQuery = object(
  { path: MdocClaimPath },
  {
    id: Identifier,
    values: nonEmptyArray(withMessage(t.union([t.string, t.Int, t.boolean]), 'expected a string, an integer or a boolean')),
    intent_to_retain: t.boolean,
  },
  'MdocClaimsQuery',
);

export const MsoMdocQuery = object(
  {
    id: Identifier,
    format: t.literal('mso_mdoc'),
    meta: object({ doctype_value: withMessage(NonEmptyString, 'required for mso_mdoc: the docType asked for, a non-empty string') }, {}, 'MdocMeta'),
    claims: nonEmptyArray(MdocClaimsQuery),
  },
  credentialQueryOptions,
  'MsoMdocQuery',
);
export type MsoMdocQuery = t.TypeOf<typeof MsoMdocQuery>;

export type CredentialQuery = SdJwtVcQuery | MsoMdocQuery;

// Chosen by `format`, so a failure is reported against that format's members only.
export const CredentialQuery = new t.Type<CredentialQuery, unknown, unknown>(
  'CredentialQuery',
  (u): u is CredentialQuery => SdJwtVcQuery.is(u) || MsoMdocQuery.is(u),
  (u, c) => {
    const format = typeof u === 'object' && u !== null ? (u as Record<string, unknown>)['format'] : undefined;
    // The chosen codec takes this entry's place, so failures inside it get the locations they
    // would have as the array's item codec (`credentials[0].meta`, no member index).
    const as = (codec: t.Mixed): t.Context => [...c.slice(0, -1), { ...c[c.length - 1]!, type: codec }];
    if (format === 'dc+sd-jwt') return SdJwtVcQuery.validate(u, as(SdJwtVcQuery));
    if (format === 'mso_mdoc') return MsoMdocQuery.validate(u, as(MsoMdocQuery));
    if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c, 'expected a credential query object');
    return t.failure(format, [...c, { key: 'format', type: t.string, actual: format }], 'expected "dc+sd-jwt" or "mso_mdoc", the formats this connector verifies');
  },
  (query) => (query.format === 'mso_mdoc' ? MsoMdocQuery.encode(query) : SdJwtVcQuery.encode(query)),
);

export const CredentialSetQuery = object({ options: nonEmptyArray(nonEmptyArray(Identifier)) }, { required: t.boolean }, 'CredentialSetQuery');
export type CredentialSetQuery = t.TypeOf<typeof CredentialSetQuery>;

export const DcqlQuery = object(
  { credentials: nonEmptyArray(CredentialQuery) },
  { credential_sets: nonEmptyArray(CredentialSetQuery) },
  'DcqlQuery',
);
export type DcqlQuery = t.TypeOf<typeof DcqlQuery>;

/** The DCQL default: holder binding unless the query turns it off. */
export const requiresHolderBinding = (query: CredentialQuery): boolean => query.require_cryptographic_holder_binding ?? true;

const duplicates = (values: readonly string[]): Set<string> => {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const v of values) (seen.has(v) ? repeated : seen).add(v);
  return repeated;
};

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * `trusted_authorities` values: aki values are base64url KeyIdentifiers; etsi_tl values are URLs
 * of the trusted lists this instance follows (`trustListUrls`; undefined in static mode, where
 * etsi_tl cannot be resolved at all).
 */
const trustedAuthorityProblems = (credential: CredentialQuery, at: string, trustListUrls: ReadonlySet<string> | undefined): FieldError[] =>
  (credential.trusted_authorities ?? []).flatMap((authority, j): FieldError[] => {
    const where = `${at}.trusted_authorities[${j}]`;
    if (authority.type === 'etsi_tl' && trustListUrls === undefined) {
      return [{ location: `${where}.type`, message: 'etsi_tl needs X509_TRUST_RESOLUTION_MODE=lotl; this instance follows no trusted lists', value: authority.type }];
    }
    return authority.values.flatMap((value, k): FieldError[] => {
      if (authority.type === 'aki' && !BASE64URL.test(value)) return [{ location: `${where}.values[${k}]`, message: 'expected a base64url KeyIdentifier', value }];
      if (authority.type === 'etsi_tl' && !trustListUrls!.has(value)) {
        return [{ location: `${where}.values[${k}]`, message: 'is not the URL of a trusted list this instance follows', value }];
      }
      return [];
    });
  });

/** What the codecs cannot see: unique ids and that every reference names something that exists. */
export const dcqlProblems = (query: DcqlQuery, location: string, trustListUrls?: ReadonlySet<string>): FieldError[] => {
  const errors: FieldError[] = [];
  const ids = query.credentials.map((c) => c.id);
  const repeatedIds = duplicates(ids);
  query.credentials.forEach((credential, i) => {
    const at = `${location}.credentials[${i}]`;
    errors.push(...trustedAuthorityProblems(credential, at, trustListUrls));
    if (repeatedIds.has(credential.id)) {
      errors.push({ location: `${at}.id`, message: 'credential query ids must be unique', value: credential.id });
    }
    // The id keys the wallet's vp_token, whose JSON may hold no member named __proto__ (src/http/boundedJson.ts).
    if (credential.id === '__proto__') {
      errors.push({ location: `${at}.id`, message: 'is reserved: no wallet answer may use __proto__ as a member name', value: credential.id });
    }
    const claimIds = credential.claims.flatMap((c) => (c.id === undefined ? [] : [c.id]));
    for (const id of duplicates(claimIds)) {
      errors.push({ location: `${at}.claims`, message: 'claim ids must be unique within a credential query', value: id });
    }
    if (credential.claim_sets === undefined) return;
    credential.claims.forEach((claim, j) => {
      if (claim.id === undefined) {
        errors.push({ location: `${at}.claims[${j}].id`, message: 'required when claim_sets is present', value: undefined });
      }
    });
    credential.claim_sets.forEach((set, j) =>
      set.forEach((id, k) => {
        if (!claimIds.includes(id)) {
          errors.push({ location: `${at}.claim_sets[${j}][${k}]`, message: 'names no claim of this credential query', value: id });
        }
      }),
    );
  });
  query.credential_sets?.forEach((set, i) =>
    set.options.forEach((option, j) =>
      option.forEach((id, k) => {
        if (!ids.includes(id)) {
          errors.push({
            location: `${location}.credential_sets[${i}].options[${j}][${k}]`,
            message: 'names no credential query',
            value: id,
          });
        }
      }),
    ),
  );
  return errors;
};

/**
 * The claims a presentation may satisfy, in the query's order of preference: each claim set
 * (OpenID4VP 1.0 section 6.4.1), or all claims when there are none.
 */
export const claimAlternatives = <Q extends CredentialQuery>(query: Q): ReadonlyArray<readonly Q['claims'][number][]> => {
  const claims: readonly Q['claims'][number][] = query.claims;
  if (query.claim_sets === undefined) return [claims];
  return query.claim_sets.map((set) => set.flatMap((id) => claims.filter((c) => c.id === id)));
};

/** The values a claims path selects in a disclosed payload (section 7: `null` takes every element). */
const selectValues = (payload: unknown, path: readonly (string | number | null)[]): readonly unknown[] =>
  path.reduce<readonly unknown[]>(
    (selected, element) =>
      selected.flatMap((value) => {
        if (element === null) return Array.isArray(value) ? value : [];
        if (typeof element === 'number') return Array.isArray(value) && element < value.length ? [value[element]] : [];
        return isRecord(value) && Object.hasOwn(value, element)
          ? [value[element]]
          : [];
      }),
    [payload],
  );

/** The first claim whose `values` the disclosed payload does not match, if any (section 6.3). */
export const claimWithoutRequestedValue = <C extends Pick<ClaimsQuery, 'path' | 'values'>>(claims: readonly C[], payload: unknown): C | undefined =>
  claims.find((claim) => claim.values !== undefined && !selectValues(payload, claim.path).some((v) => claim.values!.includes(v as never)));

/**
 * The credential query ids a response must contain: every credential when there are no
 * credential sets; otherwise, for each required set, the first option the response satisfies.
 * Returns the ids of a required set none of whose options is satisfied, if any.
 */
export const unsatisfiedCredentialSets = (query: DcqlQuery, presented: ReadonlySet<string>): readonly string[] => {
  if (query.credential_sets === undefined) return query.credentials.map((c) => c.id).filter((id) => !presented.has(id));
  return query.credential_sets
    .filter((set) => (set.required ?? true) && !set.options.some((option) => option.every((id) => presented.has(id))))
    .flatMap((set) => set.options[0] ?? []);
};
