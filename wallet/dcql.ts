// Which of the wallet's credentials answer a request's DCQL query: for each credential query, the
// latest held credential of a requested `vct` (format `dc+sd-jwt`) or of the requested docType
// (format `mso_mdoc`) that has every claim the query names, with the value asked for when the
// query lists values.
// What is disclosed is then exactly what the query asks for (presentation.ts).
import type { AuthorizationRequest, ClaimsQuery, CredentialQuery, Holding } from './presentation.js';
import { elementsOf, readIssuerSigned } from './mdoc.js';
import { claimsOf, holdCredential, type HeldCredential, type Holder } from './sdJwt.js';
import type { StoredCredential } from './store.js';

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

/** An mdoc as the wallet keeps it: the issued IssuerSigned (base64url) and its docType. */
export interface HeldMdoc {
  readonly credential: string;
  readonly doctype: string;
}

/** The mdoc answering `query`, and the `[namespace, element]` pairs to disclose: exactly the requested ones. */
const mdocAnswer = (query: CredentialQuery, mdoc: HeldMdoc): (readonly [string, string])[] | undefined => {
  if (query.format !== 'mso_mdoc' || query.meta?.doctype_value !== mdoc.doctype) return undefined;
  const held = elementsOf(readIssuerSigned(mdoc.credential));
  const asked = query.claims.map((c) => [String(c.path[0]), String(c.path[1])] as const);
  return asked.every(([ns, element]) => held.some(([n, e]) => n === ns && e === element)) ? asked : undefined;
};

/** The wallet file's credentials as the selection takes them: SD-JWT VCs taken apart, mdocs by docType. */
export const heldOf = (credentials: readonly StoredCredential[]): { held: HeldCredential[]; heldMdocs: HeldMdoc[] } => ({
  held: credentials.flatMap((c) => (c.format === 'mso_mdoc' ? [] : [holdCredential(c.credential)])),
  heldMdocs: credentials.flatMap((c) => (c.format === 'mso_mdoc' ? [{ credential: c.credential, doctype: c.doctype }] : [])),
});

export interface Selection {
  /** What to present, by credential query id. */
  readonly holdings: Readonly<Record<string, Holding>>;
  /** The mdocs to present, by credential query id, with what to disclose. */
  readonly mdocs: Readonly<Record<string, { readonly mdoc: HeldMdoc; readonly disclose: readonly (readonly [string, string])[] }>>;
  /** Why the request cannot be answered with these credentials; empty when it can. */
  readonly missing: readonly string[];
}

/** The presentation the wallet can make for `request` from `held` (oldest first), all bound to `holder`. */
export const select = (
  request: Pick<AuthorizationRequest, 'credentialQueries' | 'credentialSets'>,
  held: readonly HeldCredential[],
  holder: Holder,
  heldMdocs: readonly HeldMdoc[] = [],
): Selection => {
  const holdings: Record<string, Holding> = {};
  const mdocs: Record<string, { mdoc: HeldMdoc; disclose: (readonly [string, string])[] }> = {};
  for (const query of request.credentialQueries) {
    if (query.format === 'mso_mdoc') {
      for (const mdoc of [...heldMdocs].reverse()) {
        const disclose = mdocAnswer(query, mdoc);
        if (disclose) {
          mdocs[query.id] = { mdoc, disclose };
          break;
        }
      }
      continue;
    }
    const credential = [...held].reverse().find((candidate) => answers(query, candidate));
    if (credential !== undefined) holdings[query.id] = { credential, holder };
  }
  const has = (id: string) => Object.hasOwn(holdings, id) || Object.hasOwn(mdocs, id);
  const missing =
    request.credentialSets === undefined
      ? request.credentialQueries.filter((q) => !has(q.id)).map((q) => `no credential answers query "${q.id}"`)
      : request.credentialSets
          .filter((set) => set.required !== false && !set.options.some((option) => option.every(has)))
          .map((set) => `no credentials answer any option of ${JSON.stringify(set.options)}`);
  return { holdings, mdocs, missing };
};
