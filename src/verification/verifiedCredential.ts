// What every presented-credential format gives back (formats/*): the callback's credential object
// and raw credential object (connector specification, "Credential object"), or why it failed;
// the trust fields come from src/trust (TrustFields), the status fields from status/statusCheck.ts.
export type { VerificationFailure } from '../trust/issuerTrust.js';

/** Credential object of the callback (spec: Credential object). */
export interface CredentialObject {
  readonly issuer: string;
  readonly claims: Record<string, unknown>;
  readonly signatureIsValid: boolean;
  readonly supportRevocation: boolean;
  /** Our addition, with STATUS_LIST_FAILURE_POLICY=evaluate only: whether the status list could be read. */
  readonly statusCheck?: 'valid' | 'unavailable';
  readonly supportTrustAnchor: boolean;
  readonly isTrusted?: boolean;
  readonly isCertificateRevoked?: boolean;
  readonly credentialCategory?: string;
  readonly trustSource?: string;
  readonly supervisoryMemberState?: string;
  readonly qualifiedStatus?: boolean;
  readonly trustDataTimestamp?: string;
  readonly trustFailureReason?: string;
  readonly staleTrustData?: { readonly cachedFallback: boolean; readonly pastNextUpdate: boolean };
  readonly kbKeyId?: string;
  readonly kbSignatureIsValid?: boolean;
  readonly transactionDataHashes?: readonly string[];
  readonly validFrom?: string;
  readonly validUntil?: string;
}

/** Raw credential object of the callback: `claims` is base64 of the JSON object. */
export interface RawCredentialObject {
  readonly claims: string;
  readonly issuer: string;
  readonly validFrom?: string;
  readonly validUntil?: string;
  readonly kbKeyId?: string;
  readonly transactionDataHashes?: readonly string[];
}

export interface VerifiedCredential {
  readonly credential: CredentialObject;
  readonly raw: RawCredentialObject;
  /** lotl mode: SHA-256 of each trusted list version its trust decision rests on. */
  readonly trustListDigests?: readonly string[];
}
