// What a tenant shows wallets as its own (issue 38): its signing keys (signing-key resources), its
// credential issuer identifier, and its registration as a relying party (PUT /verifier). The
// features read these ports; the resources feature writes what they read. A tenant that has none
// of its own is served by the deployment's identity (the key files or token labels of the
// environment, the issuer at PUBLIC_URL), as every tenant was before.
import type { SigningRole } from '../crypto/keyStore.js';
import type { SigningIdentity } from '../crypto/signingIdentity.js';
import type { Json } from '../eventstore/port.js';

/** A tenant's own signing keys. */
export interface TenantSigningKeys {
  /**
   * The tenant's active key of `role` with its chain, or undefined when it has none (the
   * deployment's key serves it). Throws KeysUnavailable when the key store does not answer.
   */
  active(tenantId: string, role: SigningRole): Promise<SigningIdentity | undefined>;
}

/** A tenant's own credential issuer identifier: `{PUBLIC_URL}/issuers/{tenant_id}`. */
export const tenantCredentialIssuer = (publicUrl: string, tenantId: string): string => `${publicUrl}/issuers/${tenantId}`;

/** One entry of a registration certificate's `credentials` (ETSI TS 119 475): what may be asked for. */
export interface RegisteredCredential {
  readonly format: string;
  /** As in DCQL: `vct_values` (dc+sd-jwt), `doctype_value` (mso_mdoc). */
  readonly meta: { readonly [member: string]: Json };
  /** Registered claims by path; absent: none may be asked for beyond the type itself. */
  readonly claims?: readonly { readonly path: readonly (string | number | null)[] }[];
}

/** A tenant's registration as a relying party, checked when it was stored. */
export interface VerifierRegistration {
  /** The registration certificate JWT as given (`typ` rc-wrp+jwt). */
  readonly registrationCertificate: string;
  readonly credentials: readonly RegisteredCredential[];
  /** Refuse presentation requests asking for what the certificate does not register. */
  readonly enforce: boolean;
}

export interface TenantVerifierRegistrations {
  /** The tenant's current registration, or undefined when it has set none. */
  of(tenantId: string): VerifierRegistration | undefined;
}
