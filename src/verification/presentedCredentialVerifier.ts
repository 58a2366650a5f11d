// The contract every presented-credential format fulfils: a presentation answering a DCQL
// credential query is checked by its format's `PresentedCredentialVerifier` (one folder per format
// under formats/, listed in formats/registry.ts), over the same issuer trust verifier and status
// checker, and comes back as the same credential object (verifiedCredential.ts), which says its
// `format` (and `vct` or `doctype`). The steps see only `PresentationVerifier`.
import type { Either } from 'fp-ts/lib/Either.js';
import type { HandoverInfo } from '../mdoc/sessionTranscript.js';
import type { CredentialQuery } from './dcql.js';
import type { VerificationFailure, VerifiedCredential } from './verifiedCredential.js';

/** What the request binds a presentation to. */
export interface FormatContext {
  /**
   * A KB-JWT's expected `aud`: the request's full client_id (`x509_hash:…`), or over the DC API
   * the page's origin prefixed with `origin:` (OpenID4VP 1.0 A.4, even for signed requests).
   */
  readonly audience: string;
  readonly nonce: string;
  readonly now: Date;
  /** Each transaction data item as the exact base64url string sent, with its `credential_ids`. */
  readonly transactionData: readonly { readonly encoded: string; readonly credentialIds: readonly string[] }[];
  /** The DCQL credential query id this presentation answers. */
  readonly credentialId: string;
  /** An mdoc's SessionTranscript handover: the request's, by redirect or over the DC API. */
  readonly handover: HandoverInfo;
  /** The tenant whose request the presentation answers: its settings choose the trust and status policies (feature.ts). */
  readonly tenantId?: string;
}

/** One format's checks of one presentation against its credential query and the claims (one claim set) it must satisfy. */
export interface PresentedCredentialVerifier<Q extends CredentialQuery> {
  verify(presentation: string, query: Q, claims: readonly Q['claims'][number][], context: FormatContext): Promise<Either<VerificationFailure, VerifiedCredential>>;
}

/** The registry: one verifier for each format a DCQL credential query may name. */
export type PresentedCredentialVerifiers = {
  readonly [F in CredentialQuery['format']]: PresentedCredentialVerifier<Extract<CredentialQuery, { readonly format: F }>>;
};

/** Checks one presentation with the verifier of its query's format. */
export type PresentationVerifier = <Q extends CredentialQuery>(
  presentation: string,
  query: Q,
  claims: readonly Q['claims'][number][],
  context: FormatContext,
) => Promise<Either<VerificationFailure, VerifiedCredential>>;

export const presentationVerifier =
  (verifiers: PresentedCredentialVerifiers): PresentationVerifier =>
  (presentation, query, claims, context) =>
    // The registry is keyed by format, so the entry for `query.format` takes exactly this query type.
    (verifiers[query.format] as unknown as PresentedCredentialVerifier<typeof query>).verify(presentation, query, claims, context);
