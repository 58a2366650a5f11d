// Registering the tenant as a relying party (the use case, no HTTP; `/verifier`, a singleton
// resource, updateSingleton.ts): its ETSI TS 119 475 registration certificate, checked before it
// is recorded (src/tenantIdentity/registrationCertificate.ts) and, where the operator names
// registrars (REGISTRATION_CERTIFICATE_TRUST_ANCHORS), validated up to one of them; the
// `credentials` it registers; and `enforce_registration`, which needs a certificate. The
// verification feature reads it through TenantVerifierRegistrations.
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { KindCommand } from '../../streams/resource.js';
import { initialVerifier, tenantVerifier, VERIFIER_KIND, type RegisterVerifier, type TenantVerifierEvent } from '../../streams/tenantVerifier.js';
import type { Json } from '../eventstore/port.js';
import { checkRegistrationCertificate } from '../tenantIdentity/registrationCertificate.js';
import { trustAnchorCertificates } from '../trust/trustAnchors.js';
import { findTrustAnchor, validateChain } from '../trust/x509Chain.js';
import { singletonKind } from './readSingleton.js';
import type { SingletonChange } from './updateSingleton.js';

type Never = { readonly type: 'CreateTenantVerifier'; readonly data: { readonly at: string } };

export const verifierKind = singletonKind<TenantVerifierEvent, KindCommand<Never, RegisterVerifier>>({
  path: 'verifier',
  name: VERIFIER_KIND.name,
  decider: tenantVerifier,
  initial: (tenantId, id, at) => initialVerifier(tenantId, id, at),
});

/** `PUT /verifier`: the request's body, and no other member. */
export const RegistrationBody = t.type({ registration_certificate: t.union([t.string, t.null]), enforce_registration: t.boolean });
export type Registration = t.TypeOf<typeof RegistrationBody>;
export const REGISTRATION_MEMBERS = ['registration_certificate', 'enforce_registration'];

/** A member of the registration refused, named: 400. */
export type RegistrationRefused = { readonly _tag: 'RegistrationRefused'; readonly member: string; readonly message: string };

const refused = (member: string, message: string): RegistrationRefused => ({ _tag: 'RegistrationRefused', member, message });

/** Enforcing the registration needs a registration certificate. */
export const checkEnforcement = (registration: Registration): Either<RegistrationRefused, Registration> =>
  registration.enforce_registration && registration.registration_certificate === null ? left(refused('enforce_registration', 'true needs a registration_certificate')) : right(registration);

/**
 * The operation registering the tenant: the certificate checked (now), and validated up to a
 * registrar where `trustAnchors` names them (fail closed: a chain that does not end at one is refused).
 */
export const registerVerifier = async (
  deps: { readonly now: () => Date; readonly trustAnchors: readonly string[] | undefined },
  registration: Registration,
): Promise<Either<RegistrationRefused, SingletonChange>> => {
  const enforced = checkEnforcement(registration);
  if (isLeft(enforced)) return enforced;
  const { registration_certificate: certificate, enforce_registration: enforce } = registration;
  let credentials: readonly Json[] = [];
  if (certificate !== null) {
    const now = deps.now();
    const checked = await checkRegistrationCertificate(certificate, now);
    if (isLeft(checked)) return left(refused('registration_certificate', `${checked.left.rule}: ${checked.left.detail}`));
    if (deps.trustAnchors !== undefined) {
      const valid = await validateChain(checked.right.chain, now);
      if (isLeft(valid)) return left(refused('registration_certificate', `registrar: ${valid.left}`));
      const anchor = await findTrustAnchor(checked.right.chain, trustAnchorCertificates(deps.trustAnchors), now);
      if (anchor === undefined) return left(refused('registration_certificate', 'registrar: the x5c chain does not end at a REGISTRATION_CERTIFICATE_TRUST_ANCHORS certificate'));
    }
    credentials = checked.right.credentials as unknown as readonly Json[];
  }
  return right({ type: 'RegisterVerifier', data: { registrationCertificate: certificate, credentials, enforceRegistration: enforce } });
};
