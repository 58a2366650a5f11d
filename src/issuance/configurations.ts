// The credential configurations the connector can issue: read once at start from the JSON file
// named by CREDENTIAL_CONFIGURATIONS, or the built-in defaults. A bad file stops the process
// with a message naming the entry, because an issuer that starts with half its types is worse
// than one that does not start.
import { readFile } from 'node:fs/promises';
import * as t from 'io-ts';
import { isLeft, left, type Either } from 'fp-ts/lib/Either.js';
import { describeErrors } from '../http/validate.js';

export const Display = t.intersection([t.exact(t.type({ lang: t.string, name: t.string })), t.exact(t.partial({ description: t.string }))], 'Display');
export type Display = t.TypeOf<typeof Display>;

/** SD-JWT VC Type Metadata's selective disclosure rule; `allowed` is disclosed selectively here. */
export const SdRule = t.keyof({ always: null, never: null, allowed: null }, 'SdRule');
export type SdRule = t.TypeOf<typeof SdRule>;

/** What a claim's value must be; absent means any JSON value but null. */
export const ValueType = t.keyof({ string: null, number: null, integer: null, boolean: null, date: null, object: null, array: null }, 'ValueType');
export type ValueType = t.TypeOf<typeof ValueType>;

/**
 * What an mdoc element's value must be, given in an offer as JSON: `full-date` as `YYYY-MM-DD`
 * (CBOR tag 1004), `tdate` as an ISO 8601 date-time (tag 0), `bytes` as base64url (a byte string),
 * `driving_privileges` as ISO/IEC 18013-5 Table 5's array whose `issue_date` and `expiry_date`
 * are full-dates; the rest as in JSON.
 */
export const MdocValueType = t.keyof(
  { string: null, number: null, integer: null, boolean: null, 'full-date': null, tdate: null, bytes: null, object: null, array: null, driving_privileges: null },
  'MdocValueType',
);
export type MdocValueType = t.TypeOf<typeof MdocValueType>;

const ClaimName = t.refinement(t.string, (s) => s !== '', 'ClaimName');

export const ClaimConfiguration = t.intersection(
  [
    t.exact(t.type({ path: t.array(ClaimName), mandatory: t.boolean, sd: SdRule, display: t.array(Display) })),
    t.exact(t.partial({ value_type: ValueType })),
  ],
  'ClaimConfiguration',
);
export type ClaimConfiguration = t.TypeOf<typeof ClaimConfiguration>;

const ConfigurationId = t.refinement(t.string, (s) => /^[A-Za-z0-9_.-]{1,64}$/.test(s), 'ConfigurationId');
const Uri = t.refinement(t.string, (s) => /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(s), 'Uri');

export const SdJwtVcConfiguration = t.intersection(
  [
    t.exact(t.type({ id: ConfigurationId, vct: Uri, display: t.array(Display), claims: t.array(ClaimConfiguration) })),
    /**
     * `status_list: false`: credentials of this type carry no Status List entry and cannot be revoked or suspended.
     * `sub_jwk_thumbprint: false`: they carry no `sub` (by default the holder key's JWK Thumbprint URI, RFC 9278).
     */
    t.exact(t.partial({ format: t.literal('dc+sd-jwt'), status_list: t.boolean, sub_jwk_thumbprint: t.boolean })),
  ],
  'SdJwtVcConfiguration',
);
export type SdJwtVcConfiguration = t.TypeOf<typeof SdJwtVcConfiguration>;

/** An mdoc element: `[namespace, elementIdentifier]`. */
const isMdocClaimPath = (u: unknown): u is [string, string] => Array.isArray(u) && u.length === 2 && u.every((s) => typeof s === 'string' && s !== '');
const MdocClaimPath = new t.Type<[string, string], [string, string], unknown>('[namespace, element identifier]', isMdocClaimPath, (u, c) => (isMdocClaimPath(u) ? t.success(u) : t.failure(u, c)), t.identity);

export const MdocClaimConfiguration = t.intersection(
  [t.exact(t.type({ path: MdocClaimPath, mandatory: t.boolean, display: t.array(Display) })), t.exact(t.partial({ value_type: MdocValueType }))],
  'MdocClaimConfiguration',
);
export type MdocClaimConfiguration = t.TypeOf<typeof MdocClaimConfiguration>;

const Scope = t.refinement(t.string, (s) => /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s), 'Scope');

export const MsoMdocConfiguration = t.intersection(
  [
    t.exact(t.type({ id: ConfigurationId, format: t.literal('mso_mdoc'), doctype: ClaimName, display: t.array(Display), claims: t.array(MdocClaimConfiguration) })),
    /** `scope`: the OAuth scope naming it (HAIP wants one per configuration); default its id. */
    t.exact(t.partial({ scope: Scope, status_list: t.boolean })),
  ],
  'MsoMdocConfiguration',
);
export type MsoMdocConfiguration = t.TypeOf<typeof MsoMdocConfiguration>;

export type CredentialConfiguration = SdJwtVcConfiguration | MsoMdocConfiguration;

/** The OAuth scope a wallet asks for a configuration with in the authorization code flow (HAIP: one each). */
export const scopeOf = (c: CredentialConfiguration): string => (c.format === 'mso_mdoc' ? (c.scope ?? c.id) : c.id);

/**
 * Chosen by `format`; an entry without one is an SD-JWT VC, as before mdocs existed. Members the
 * connector does not know are dropped (every object codec above is exact), so what is kept, in a
 * tenant's resource as from the file, is what is used.
 */
const configurationCodec = (entry: unknown): t.Decoder<unknown, CredentialConfiguration> =>
  typeof entry === 'object' && entry !== null && (entry as { format?: unknown }).format === 'mso_mdoc' ? MsoMdocConfiguration : SdJwtVcConfiguration;

export const CredentialConfigurationsFile = t.type({ credential_configurations: t.array(t.unknown) }, 'CredentialConfigurationsFile');

/** Registered JWT and SD-JWT VC claims the connector sets itself; an offer must not supply them. */
export const RESERVED_CLAIMS: readonly string[] = ['iss', 'sub', 'iat', 'exp', 'nbf', 'vct', 'vct#integrity', 'cnf', 'status', '_sd', '_sd_alg', '...'];

/** Names SD-JWT gives a meaning at any depth. */
const SD_JWT_NAMES: readonly string[] = ['_sd', '_sd_alg', '...'];

const samePath = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((s, i) => s === b[i]);
const isPrefix = (prefix: readonly string[], path: readonly string[]): boolean =>
  prefix.length < path.length && prefix.every((s, i) => s === path[i]);

/** A problem of a configuration: where in it (`claims[2].path`; empty: the entry itself) and what. */
export interface ConfigurationProblem {
  readonly location: string;
  readonly message: string;
}

/** Rules io-ts cannot say: what makes a configuration unusable even though it is well-formed. */
const semanticProblems = (c: CredentialConfiguration): ConfigurationProblem[] => {
  const problems: ConfigurationProblem[] = [];
  const problem = (location: string, message: string): void => {
    problems.push({ location, message });
  };
  if (c.display.length === 0) problem('display', 'at least one entry is needed');
  if (c.claims.length === 0) problem('claims', 'at least one claim is needed');
  if (c.format === 'mso_mdoc') {
    c.claims.forEach((claim, i) =>
      c.claims.forEach((other, j) => {
        if (j > i && samePath(claim.path, other.path)) problem(`claims[${j}].path`, `duplicates claims[${i}]`);
      }),
    );
    return problems;
  }
  c.claims.forEach((claim, i) => {
    const [first] = claim.path;
    if (first === undefined) problem(`claims[${i}].path`, 'must not be empty');
    else if (RESERVED_CLAIMS.includes(first)) problem(`claims[${i}].path`, `"${first}" is set by the connector`);
    if (claim.path.some((s) => SD_JWT_NAMES.includes(s))) problem(`claims[${i}].path`, 'SD-JWT reserved names cannot be claim names');
    c.claims.forEach((other, j) => {
      if (j <= i) return;
      if (samePath(claim.path, other.path)) problem(`claims[${j}].path`, `duplicates claims[${i}]`);
      // A claim inside another would make the outer one both a value and a container.
      else if (isPrefix(claim.path, other.path) || isPrefix(other.path, claim.path)) {
        problem(`claims[${j}].path`, `nests with claims[${i}]; describe the members of an object, not the object too`);
      }
    });
  });
  return problems;
};

/**
 * One configuration checked: its shape (by `format`) and the rules io-ts cannot say; else every
 * problem, each naming its field. The file loader and the credential-configurations resource
 * (src/resources/credentialConfigurations.ts) both check with this.
 */
export const checkCredentialConfiguration = (entry: unknown): Either<readonly ConfigurationProblem[], CredentialConfiguration> => {
  const decoded = configurationCodec(entry).decode(entry);
  if (isLeft(decoded)) return left(describeErrors(decoded.left, '').map(({ location, message }) => ({ location, message })));
  const problems = semanticProblems(decoded.right);
  return problems.length > 0 ? left(problems) : decoded;
};

/** Validates a configurations document; throws with one line per problem, each naming its entry. */
export const parseCredentialConfigurations = (document: unknown, source: string): readonly CredentialConfiguration[] => {
  const file = CredentialConfigurationsFile.decode(document);
  if (isLeft(file)) throw new Error(`${source}: expected {"credential_configurations": [...]}`);
  const problems: string[] = [];
  const out: CredentialConfiguration[] = [];
  file.right.credential_configurations.forEach((entry, index) => {
    const id = typeof entry === 'object' && entry !== null && typeof (entry as { id?: unknown }).id === 'string' ? (entry as { id: string }).id : undefined;
    const name = `entry ${id === undefined ? index : `"${id}"`} (credential_configurations[${index}])`;
    const checked = checkCredentialConfiguration(entry);
    if (isLeft(checked)) {
      for (const p of checked.left) problems.push(`${name}: ${p.location || 'entry'}: ${p.message}`);
      return;
    }
    if (out.some((c) => c.id === checked.right.id)) problems.push(`${name}: id "${checked.right.id}" is used twice`);
    out.push(checked.right);
  });
  if (out.length === 0 && problems.length === 0) problems.push('no credential configuration');
  if (problems.length > 0) throw new Error(`${source}: ${problems.join('; ')}`);
  return out;
};

/** The file named by CREDENTIAL_CONFIGURATIONS, or the built-in defaults when unset. */
export const loadCredentialConfigurations = async (file: string | undefined): Promise<readonly CredentialConfiguration[]> => {
  if (file === undefined) return parseCredentialConfigurations(DEFAULT_CONFIGURATIONS, 'built-in credential configurations');
  const source = `CREDENTIAL_CONFIGURATIONS (${file})`;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`${source}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new Error(`${source}: not valid JSON`);
  }
  return parseCredentialConfigurations(document, source);
};

const en = (name: string): Display[] => [{ lang: 'en', name }];
const claim = (path: string[], name: string, rule: Partial<ClaimConfiguration> = {}): ClaimConfiguration => ({
  path,
  mandatory: false,
  sd: 'always',
  display: en(name),
  ...rule,
});

const element = (namespace: string, name: string, label: string, value_type: MdocValueType, mandatory = true): MdocClaimConfiguration => ({
  path: [namespace, name],
  mandatory,
  display: en(label),
  value_type,
});

const PID_NAMESPACE = 'eu.europa.ec.eudi.pid.1';
const MDL_NAMESPACE = 'org.iso.18013.5.1';

/**
 * A PID-like type and a simple membership attestation, so a fresh start can issue something; and
 * the two mdocs the EU wallets carry: the PID in mdoc form (the PID rulebook's mandatory
 * elements) and the mDL (ISO/IEC 18013-5, Table 5).
 */
export const DEFAULT_CONFIGURATIONS = {
  credential_configurations: [
    {
      id: 'pid',
      vct: 'urn:eudi:pid:1',
      display: [{ lang: 'en', name: 'Person identification data' }],
      claims: [
        claim(['family_name'], 'Family name', { mandatory: true, value_type: 'string' }),
        claim(['given_name'], 'Given name', { mandatory: true, value_type: 'string' }),
        claim(['birthdate'], 'Date of birth', { mandatory: true, value_type: 'date' }),
        claim(['nationalities'], 'Nationalities', { mandatory: true, value_type: 'array' }),
        claim(['place_of_birth', 'locality'], 'Place of birth', { value_type: 'string' }),
        claim(['address', 'street_address'], 'Street', { value_type: 'string' }),
        claim(['address', 'locality'], 'City', { value_type: 'string' }),
        claim(['address', 'postal_code'], 'Postal code', { value_type: 'string' }),
        claim(['address', 'country'], 'Country', { value_type: 'string' }),
        claim(['age_equal_or_over', '18'], 'Adult', { value_type: 'boolean' }),
        claim(['issuing_authority'], 'Issuing authority', { mandatory: true, sd: 'never', value_type: 'string' }),
        claim(['issuing_country'], 'Issuing country', { mandatory: true, sd: 'never', value_type: 'string' }),
      ],
    },
    {
      id: 'membership',
      vct: 'urn:example:membership:1',
      display: [{ lang: 'en', name: 'Membership card' }],
      claims: [
        claim(['member_number'], 'Member number', { mandatory: true, sd: 'never', value_type: 'string' }),
        claim(['given_name'], 'Given name', { mandatory: true, value_type: 'string' }),
        claim(['family_name'], 'Family name', { mandatory: true, value_type: 'string' }),
        claim(['tier'], 'Tier', { sd: 'allowed', value_type: 'string' }),
      ],
    },
    {
      id: 'pid_mdoc',
      format: 'mso_mdoc',
      doctype: PID_NAMESPACE,
      scope: 'pid_mdoc',
      display: [{ lang: 'en', name: 'Person identification data (mdoc)' }],
      claims: [
        element(PID_NAMESPACE, 'family_name', 'Family name', 'string'),
        element(PID_NAMESPACE, 'given_name', 'Given name', 'string'),
        element(PID_NAMESPACE, 'birth_date', 'Date of birth', 'full-date'),
        element(PID_NAMESPACE, 'place_of_birth', 'Place of birth', 'object'),
        element(PID_NAMESPACE, 'nationality', 'Nationalities', 'array'),
        element(PID_NAMESPACE, 'expiry_date', 'Expiry date', 'full-date'),
        element(PID_NAMESPACE, 'issuing_authority', 'Issuing authority', 'string'),
        element(PID_NAMESPACE, 'issuing_country', 'Issuing country', 'string'),
        element(PID_NAMESPACE, 'issuance_date', 'Issuance date', 'full-date', false),
        element(PID_NAMESPACE, 'age_over_18', 'Adult', 'boolean', false),
      ],
    },
    {
      id: 'mdl',
      format: 'mso_mdoc',
      doctype: 'org.iso.18013.5.1.mDL',
      scope: 'mdl',
      display: [{ lang: 'en', name: 'Mobile driving licence' }],
      claims: [
        element(MDL_NAMESPACE, 'family_name', 'Family name', 'string'),
        element(MDL_NAMESPACE, 'given_name', 'Given name', 'string'),
        element(MDL_NAMESPACE, 'birth_date', 'Date of birth', 'full-date'),
        element(MDL_NAMESPACE, 'issue_date', 'Issue date', 'full-date'),
        element(MDL_NAMESPACE, 'expiry_date', 'Expiry date', 'full-date'),
        element(MDL_NAMESPACE, 'issuing_country', 'Issuing country', 'string'),
        element(MDL_NAMESPACE, 'issuing_authority', 'Issuing authority', 'string'),
        element(MDL_NAMESPACE, 'document_number', 'Licence number', 'string'),
        element(MDL_NAMESPACE, 'portrait', 'Portrait', 'bytes'),
        element(MDL_NAMESPACE, 'driving_privileges', 'Driving privileges', 'driving_privileges'),
        element(MDL_NAMESPACE, 'un_distinguishing_sign', 'UN distinguishing sign', 'string'),
        element(MDL_NAMESPACE, 'age_over_18', 'Adult', 'boolean', false),
      ],
    },
  ],
};
