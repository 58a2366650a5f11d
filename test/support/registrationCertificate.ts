// Real ETSI TS 119 475 registration certificates for tests: a registrar CA, a leaf for its
// signing key, and the JWT signed with it (`typ` rc-wrp+jwt, `x5c`), each part changeable to make
// the certificate a check must refuse.
import { SignJWT, type JWTPayload } from 'jose';
import { createCertificateAuthority, createLeafCertificate, DAY_MS, x5cOf, type CertifiedKey } from '../../src/crypto/certificates.js';

export const PID_SD_JWT = { format: 'dc+sd-jwt', meta: { vct_values: ['urn:eudi:pid:1'] }, claims: [{ path: ['given_name'] }, { path: ['family_name'] }] };
export const MDL = { format: 'mso_mdoc', meta: { doctype_value: 'org.iso.18013.5.1.mDL' }, claims: [{ path: ['org.iso.18013.5.1', 'age_over_18'] }] };

export interface RegistrationOptions {
  readonly typ?: string;
  readonly iat?: number;
  readonly exp?: number;
  readonly credentials?: unknown;
  /** Leaves `x5c` out of the header. */
  readonly noX5c?: boolean;
  /** The leaf certificate's validity. */
  readonly leafValidity?: { readonly notBefore: Date; readonly notAfter: Date };
  /** Signs with another key than the leaf's. */
  readonly signedByOtherKey?: boolean;
  /** Another registrar than the test's one. */
  readonly registrar?: CertifiedKey;
}

let registrar: Promise<CertifiedKey> | undefined;
const registrarCa = (): Promise<CertifiedKey> => (registrar ??= createCertificateAuthority({ commonName: 'Test registrar CA', country: 'DE' }));

/** The test registrar's CA certificate, base64 DER: what REGISTRATION_CERTIFICATE_TRUST_ANCHORS names. */
export const registrarAnchor = async (): Promise<string> => x5cOf([(await registrarCa()).certificate])[0]!;

export const registrationCertificate = async (options: RegistrationOptions = {}): Promise<string> => {
  const ca = options.registrar ?? (await registrarCa());
  const leaf = await createLeafCertificate(ca, { commonName: 'Test registrar signer', ...(options.leafValidity ?? {}) });
  const other = options.signedByOtherKey ? await createLeafCertificate(ca, { commonName: 'Someone else' }) : undefined;
  const now = Math.floor(Date.now() / 1000);
  const payload = {
    name: 'Example Relying Party',
    sub: { legal_name: ['Example GmbH'], id: [] },
    country: 'DE',
    purpose: [{ lang: 'en', value: 'Checking the age of customers' }],
    credentials: options.credentials ?? [PID_SD_JWT, MDL],
    iat: options.iat ?? now - 60,
    exp: options.exp ?? now + DAY_MS / 1000,
  };
  // TS 119 475's `sub` is an object, not RFC 7519's string.
  return new SignJWT(payload as unknown as JWTPayload)
    .setProtectedHeader({ alg: 'ES256', typ: options.typ ?? 'rc-wrp+jwt', ...(options.noX5c ? {} : { x5c: x5cOf([leaf.certificate, ca.certificate]) }) })
    .sign((other ?? leaf).keys.privateKey);
};
