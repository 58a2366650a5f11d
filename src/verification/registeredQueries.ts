// Enforcement of a tenant's registration (`"enforce_registration": true` on PUT /verifier): a DCQL
// query may ask only for what the registration certificate's `credentials` (ETSI TS 119 475)
// register. How a query is matched:
// - Its types: every `vct_values` entry of a `dc+sd-jwt` query, the `doctype_value` of an
//   `mso_mdoc` one, must be registered by an entry of the same `format` whose `meta` names it.
// - Its claims: each claim path must be covered, for every type the query asks, by a claim of an
//   entry registering that type. A registered path covers the paths it is a prefix of (element by
//   element): registering `["address"]` lets one ask `["address", "locality"]`, the registered
//   claim holding its sub-claims. A registered `null` (every array element) covers any index and
//   `null` in that place; a query's `null` asks every element, so only a registered `null` covers it.
//   An entry without `claims` registers the type alone.
// Each type or claim path outside the registration is one error, naming the query and the path.
import type { FieldError } from '../http/problem.js';
import type { RegisteredCredential } from '../tenantIdentity/ports.js';
import type { CredentialQuery, DcqlQuery } from './dcql.js';

type PathElement = string | number | null;

/** Whether registered path `registered` covers asked path `asked` (see the top of this file). */
export const pathCovers = (registered: readonly PathElement[], asked: readonly PathElement[]): boolean =>
  registered.length <= asked.length && registered.every((element, i) => element === null || element === asked[i]);

const stringsOf = (value: unknown): readonly string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** The type values a registered entry or a query names: its `vct_values`, or its `doctype_value`. */
const registeredTypes = (entry: RegisteredCredential): readonly string[] => {
  const doctype = entry.meta['doctype_value'];
  return entry.format === 'mso_mdoc' ? (typeof doctype === 'string' ? [doctype] : []) : stringsOf(entry.meta['vct_values']);
};

const askedTypes = (query: CredentialQuery): readonly { readonly type: string; readonly location: string }[] =>
  query.format === 'mso_mdoc'
    ? [{ type: query.meta.doctype_value, location: 'meta.doctype_value' }]
    : query.meta.vct_values.map((type, k) => ({ type, location: `meta.vct_values[${k}]` }));

const typeMember = (query: CredentialQuery): string => (query.format === 'mso_mdoc' ? 'doctype' : 'vct');

/** Every type and claim path `query` asks for that `credentials` do not register, as errors under `location`. */
export const unregisteredRequests = (query: DcqlQuery, credentials: readonly RegisteredCredential[], location: string): FieldError[] =>
  query.credentials.flatMap((asked, i): FieldError[] => {
    const at = `${location}.credentials[${i}]`;
    const errors: FieldError[] = [];
    const registrations = askedTypes(asked).map(({ type, location: member }) => ({
      type,
      member,
      entries: credentials.filter((entry) => entry.format === asked.format && registeredTypes(entry).includes(type)),
    }));
    for (const { type, member, entries } of registrations) {
      if (entries.length > 0) continue;
      errors.push({
        location: `${at}.${member}`,
        message: `credential query "${asked.id}" asks for a ${asked.format} credential of ${typeMember(asked)} ${JSON.stringify(type)}, which the registration certificate does not register`,
        value: type,
      });
    }
    const registered = registrations.filter((r) => r.entries.length > 0);
    asked.claims.forEach((claim, j) => {
      const path: readonly PathElement[] = claim.path;
      const outside = registered.filter(({ entries }) => !entries.some((entry) => (entry.claims ?? []).some((c) => pathCovers(c.path, path))));
      if (outside.length === 0) return;
      errors.push({
        location: `${at}.claims[${j}].path`,
        message:
          `credential query "${asked.id}" asks for claim path ${JSON.stringify(path)}, which the registration certificate does not register ` +
          `for ${typeMember(asked)} ${outside.map((r) => JSON.stringify(r.type)).join(', ')}`,
        value: path,
      });
    });
    return errors;
  });
