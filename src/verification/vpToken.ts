// Step 4 (after decryption): does the wallet's `vp_token` answer the DCQL query? Under DCQL the
// token is a JSON object keyed by credential query id, each holding an array of presentations
// (OpenID4VP 1.0 section 8.1). Each presentation is checked by its format's verifier
// (presentedCredentialVerifier.ts).
import { isRight, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { SealedRequest } from './sealedRequest.js';
import { claimAlternatives, claimWithoutRequestedValue, unsatisfiedCredentialSets } from './dcql.js';
import { describePath } from './claimPaths.js';
import type { FormatContext, PresentationVerifier } from './presentedCredentialVerifier.js';
import type { VerificationFailure, VerifiedCredential } from './verifiedCredential.js';
import { isRecord } from '../../streams/kernel.js';

export interface VerifiedPresentation {
  readonly credentials: Record<string, VerifiedCredential['credential'][]>;
  readonly credentialsRaw: Record<string, VerifiedCredential['raw'][]>;
  /** lotl mode: SHA-256 of each trusted list version the credentials' trust rests on; not part of the callback. */
  readonly trustListDigests?: readonly string[];
}

const mismatch = (reason: string): VerificationFailure => ({ reason, trustEnforcement: false });


export const verifyVpToken = async (
  vpToken: unknown,
  request: SealedRequest,
  context: Omit<FormatContext, 'credentialId' | 'transactionData' | 'tenantId'> & { readonly tenantId: string },
  verify: PresentationVerifier,
): Promise<Either<VerificationFailure, VerifiedPresentation>> => {
  if (!isRecord(vpToken)) return left(mismatch('vp_token is not a JSON object keyed by credential query id'));
  const { dcqlQuery } = request;
  const presented = new Map<string, readonly string[]>();
  for (const [id, value] of Object.entries(vpToken)) {
    const query = dcqlQuery.credentials.find((c) => c.id === id);
    if (query === undefined) return left(mismatch('vp_token holds a credential the query did not ask for'));
    if (!Array.isArray(value) || value.length === 0 || !value.every((p): p is string => typeof p === 'string')) {
      return left(mismatch(`vp_token.${id} is not a non-empty array of presentations`));
    }
    if (value.length > 1 && query.multiple !== true) return left(mismatch(`vp_token.${id} holds several presentations; the query allows one`));
    presented.set(id, value);
  }
  const missing = unsatisfiedCredentialSets(dcqlQuery, new Set(presented.keys()));
  if (missing.length > 0) return left(mismatch(`vp_token lacks the requested credential(s) ${missing.join(', ')}`));
  const transactionData = request.transactionData.map((encoded) => ({ encoded, credentialIds: credentialIdsOf(encoded) }));
  const uncovered = transactionData.findIndex(({ credentialIds }) => !credentialIds.some((id) => presented.has(id)));
  if (uncovered >= 0) return left(mismatch(`no presented credential authorizes transaction_data[${uncovered}]`));

  // Keyed by the integrator's query ids (`constructor` is a valid one): Maps, made objects at the end.
  const credentials = new Map<string, VerifiedCredential['credential'][]>();
  const credentialsRaw = new Map<string, VerifiedCredential['raw'][]>();
  const digests = new Set<string>();
  for (const [id, presentations] of presented) {
    const query = dcqlQuery.credentials.find((c) => c.id === id)!;
    for (const presentation of presentations) {
      let first: VerificationFailure | undefined;
      let verified: VerifiedCredential | undefined;
      // Claim sets are alternatives in order of preference; the first one satisfied wins.
      for (const claims of claimAlternatives(query)) {
        const result = await verify(presentation, query, claims, { ...context, transactionData, credentialId: id });
        const unmatched = isRight(result) ? claimWithoutRequestedValue(claims, result.right.credential.claims) : undefined;
        if (isRight(result) && unmatched === undefined) {
          verified = result.right;
          break;
        }
        first ??= isRight(result) ? mismatch(`claim ${describePath(unmatched!.path)} does not have one of the requested values`) : result.left;
      }
      if (verified === undefined) return left(first!);
      credentials.set(id, [...(credentials.get(id) ?? []), verified.credential]);
      credentialsRaw.set(id, [...(credentialsRaw.get(id) ?? []), verified.raw]);
      for (const digest of verified.trustListDigests ?? []) digests.add(digest);
    }
  }
  return right({
    credentials: Object.fromEntries(credentials),
    credentialsRaw: Object.fromEntries(credentialsRaw),
    ...(digests.size > 0 ? { trustListDigests: [...digests] } : {}),
  });
};

/** The credential ids of a transaction data object the connector encoded itself. */
const credentialIdsOf = (encoded: string): readonly string[] => {
  const parsed = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as { credential_ids: readonly string[] };
  return parsed.credential_ids;
};
