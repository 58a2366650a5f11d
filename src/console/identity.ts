// What the console shows of a tenant's own identity (issue 38): its signing keys with what their
// certificates say (subject, issuer, validity, whether they expire soon), which the browser cannot
// read from a PEM chain without an X.509 library, and the expiry rule the Dashboard and the
// Identity page share: one threshold, decided here.
import type { SqlReader } from '../../projections/projection.js';
import { findTenantResourcesOfKind } from '../../projections/resources.js';
import { etagOf, type Envelope } from '../../streams/resource.js';
import { SIGNING_KEY_KIND } from '../../streams/signingKey.js';
import { isRight } from 'fp-ts/lib/Either.js';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { certificatesFromPem } from '../crypto/certificates.js';
import { certificateFromBase64 } from '../crypto/x509.js';
import type { VerifierRegistration } from '../tenantIdentity/ports.js';

/** A certificate expiring within this many days is a warning (Dashboard, Identity page). */
export const EXPIRY_WARNING_DAYS = 30;

export const expiresSoon = (notAfter: Date, now: number): boolean => notAfter.getTime() - now < EXPIRY_WARNING_DAYS * 86_400_000;

/** The leaf of a key's chain as the console shows it. */
export interface ShownCertificate {
  readonly subject: string;
  readonly issuer: string;
  readonly not_before: string;
  readonly not_after: string;
  readonly expires_soon: boolean;
}

const leafOf = (pem: unknown, now: number): ShownCertificate | null => {
  if (typeof pem !== 'string') return null;
  const [leaf] = certificatesFromPem(pem);
  if (!leaf) return null;
  return { subject: leaf.subject, issuer: leaf.issuer, not_before: leaf.notBefore.toISOString(), not_after: leaf.notAfter.toISOString(), expires_soon: expiresSoon(leaf.notAfter, now) };
};

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** One of the tenant's signing keys as GET /console/api/signing-keys answers it (never its material). */
export const shownSigningKey = (envelope: Envelope, now: number) => ({
  id: envelope.id,
  revision: envelope.revision,
  etag: etagOf(envelope.id, envelope.revision),
  created_at: envelope.createdAt,
  deleted_at: envelope.deletedAt,
  role: text(envelope.data['role']),
  state: text(envelope.data['state']),
  csr: text(envelope.data['csr']),
  activated_at: text(envelope.data['activated_at']),
  retired_at: text(envelope.data['retired_at']),
  replaced_by: text(envelope.data['replaced_by']),
  certificate: leafOf(envelope.data['certificate_chain'], now),
});

/** The tenant's signing keys, oldest first. */
export const tenantSigningKeys = (db: SqlReader, tenantId: string, now: number) =>
  findTenantResourcesOfKind(db, tenantId, SIGNING_KEY_KIND.name).map((e) => shownSigningKey(e, now));

/** A registration certificate's `sub`: TS 119 475 makes it an object naming the relying party (`legal_name`...), RFC 7519 a string. */
const subjectText = (sub: unknown): string | null => {
  if (sub === undefined || sub === null) return null;
  if (typeof sub === 'string') return sub;
  const legal = (sub as { legal_name?: unknown }).legal_name;
  if (Array.isArray(legal) && legal.length > 0 && legal.every((n) => typeof n === 'string')) return legal.join(', ');
  return JSON.stringify(sub);
};

/**
 * The tenant's registration as a relying party as the Identity page shows it: whether requests are
 * held to it, whom the registration certificate registers (`sub`, and `name` where it has one),
 * who signed it (its `x5c` leaf), until when it holds (`exp`, else the leaf's end), and how many
 * credential types it registers. The certificate was checked when `PUT /verifier` stored it.
 */
export const shownRegistration = (registration: VerifierRegistration, now: number) => {
  const payload = decodeJwt(registration.registrationCertificate);
  const x5c = decodeProtectedHeader(registration.registrationCertificate).x5c?.[0];
  const signer = x5c === undefined ? undefined : certificateFromBase64(x5c);
  const leaf = signer && isRight(signer) ? signer.right : undefined;
  const until = typeof payload.exp === 'number' ? new Date(payload.exp * 1000) : leaf?.notAfter;
  return {
    enforce_registration: registration.enforce,
    subject: subjectText(payload['sub']),
    name: typeof payload['name'] === 'string' ? payload['name'] : null,
    signer: leaf?.subject ?? null,
    not_after: until?.toISOString() ?? null,
    expires_soon: until ? expiresSoon(until, now) : false,
    credentials: registration.credentials.length,
  };
};
