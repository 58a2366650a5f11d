// Which of the wallet's credentials answer a request's DCQL query: for each credential query, the
// latest held credential of a requested `vct` (format `dc+sd-jwt`, the only one the wallet holds)
// that has every claim the query names, with the value asked for when the query lists values.
// What is disclosed is then exactly what the query asks for (presentation.ts).
import type { AuthorizationRequest, ClaimsQuery, CredentialQuery, Holding } from './presentation.js';
import { claimsOf, type HeldCredential, type Holder } from './sdJwt.js';

/** The values at `path` in `claims`; `null` takes every element of an array. */
const valuesAt = (claims: unknown, path: ClaimsQuery['path']): unknown[] =>
  path.reduce<unknown[]>(
    (values, element) =>
      values.flatMap((value) => {
        if (element === null) return Array.isArray(value) ? value : [];
        if (typeof element === 'number') return Array.isArray(value) && element < value.length ? [value[element]] : [];
        return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, element) ? [(value as Record<string, unknown>)[element]] : [];
      }),
    [claims],
  );

const answers = (query: CredentialQuery, credential: HeldCredential): boolean => {
  const claims = claimsOf(credential);
  if (query.format !== 'dc+sd-jwt' || !query.meta?.vct_values?.includes(claims['vct'] as string)) return false;
  return query.claims.every((claim) => {
    const found = valuesAt(claims, claim.path);
    return found.length > 0 && (claim.values === undefined || found.some((value) => claim.values!.includes(value)));
  });
};

export interface Selection {
  /** What to present, by credential query id. */
  readonly holdings: Readonly<Record<string, Holding>>;
  /** Why the request cannot be answered with these credentials; empty when it can. */
  readonly missing: readonly string[];
}

/** The presentation the wallet can make for `request` from `held` (oldest first), all bound to `holder`. */
export const select = (request: AuthorizationRequest, held: readonly HeldCredential[], holder: Holder): Selection => {
  const holdings: Record<string, Holding> = {};
  for (const query of request.credentialQueries) {
    const credential = [...held].reverse().find((candidate) => answers(query, candidate));
    if (credential !== undefined) holdings[query.id] = { credential, holder };
  }
  const has = (id: string) => Object.hasOwn(holdings, id);
  const missing =
    request.credentialSets === undefined
      ? request.credentialQueries.filter((q) => !has(q.id)).map((q) => `no credential answers query "${q.id}"`)
      : request.credentialSets
          .filter((set) => set.required !== false && !set.options.some((option) => option.every(has)))
          .map((set) => `no credentials answer any option of ${JSON.stringify(set.options)}`);
  return { holdings, missing };
};
