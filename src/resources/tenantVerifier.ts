// `/verifier`: the tenant's registration as a relying party, a singleton resource
// (src/resources/singletons.ts): its ETSI TS 119 475 registration certificate, checked before it
// is recorded (src/tenantIdentity/registrationCertificate.ts), the `credentials` it registers, and
// `enforce_registration`. The verification feature reads it through TenantVerifierRegistrations.
import type Router from '@koa/router';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { streamName } from '../../streams/kernel.js';
import type { KindCommand } from '../../streams/resource.js';
import { initialVerifier, tenantVerifier, VERIFIER_KIND, type RegisterVerifier, type TenantVerifierEvent } from '../../streams/tenantVerifier.js';
import { readJson } from '../http/body.js';
import { HttpError, invalidRequest } from '../http/problem.js';
import { decode } from '../http/validate.js';
import { isRecord } from '../../streams/kernel.js';
import { checkRegistrationCertificate } from '../tenantIdentity/registrationCertificate.js';
import { trustAnchorCertificates } from '../trust/trustAnchors.js';
import { findTrustAnchor, validateChain } from '../trust/x509Chain.js';
import type { Json } from '../eventstore/port.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { ENVELOPE_ONLY } from './search.js';
import { singletonRoutes, type SingletonKind } from './singletons.js';

type Never = { readonly type: 'CreateTenantVerifier'; readonly data: { readonly at: string } };

export const verifierKind: SingletonKind<TenantVerifierEvent, KindCommand<Never, RegisterVerifier>> = {
  path: 'verifier',
  name: VERIFIER_KIND.name,
  scope: 'admin',
  decider: tenantVerifier,
  streamOf: (id) => streamName(tenantVerifier.category, id),
  search: ENVELOPE_ONLY,
  initial: (tenantId, id, at) => initialVerifier(tenantId, id, at),
};

const Body = t.type({ registration_certificate: t.union([t.string, t.null]), enforce_registration: t.boolean });
const MEMBERS = ['registration_certificate', 'enforce_registration'];

const refused = (location: string, message: string): HttpError => new HttpError(invalidRequest(`${location.replace(/^body\./, '')}: ${message}`, [{ location, message, value: undefined }]));

export const verifierRoutes = (router: Router, deps: ResourcesContext): void => {
  singletonRoutes(
    router,
    verifierKind,
    deps,
    async (ctx) => {
      const json = await readJson(ctx, { limitBytes: JSON_LIMIT });
      const unknown = isRecord(json) ? Object.keys(json).filter((m) => !MEMBERS.includes(m)) : [];
      if (unknown.length > 0) throw refused(`body.${unknown[0]!}`, `unknown member (known: ${MEMBERS.join(', ')})`);
      const body = decode(Body, json, 'body');
      if (body.enforce_registration && body.registration_certificate === null) {
        throw refused('body.enforce_registration', 'true needs a registration_certificate');
      }
      return body as Json;
    },
    async (request) => {
      const { registration_certificate: certificate, enforce_registration: enforce } = request as t.TypeOf<typeof Body>;
      let credentials: readonly Json[] = [];
      if (certificate !== null) {
        const now = deps.now();
        const checked = await checkRegistrationCertificate(certificate, now);
        if (isLeft(checked)) throw refused('body.registration_certificate', `${checked.left.rule}: ${checked.left.detail}`);
        const anchors = deps.config.registrationCertificateTrustAnchors;
        // Where the operator names registrars, fail closed: a chain that does not validate up to one is refused.
        if (anchors !== undefined) {
          const valid = await validateChain(checked.right.chain, now);
          if (isLeft(valid)) throw refused('body.registration_certificate', `registrar: ${valid.left}`);
          const anchor = await findTrustAnchor(checked.right.chain, trustAnchorCertificates(anchors), now);
          if (anchor === undefined) throw refused('body.registration_certificate', 'registrar: the x5c chain does not end at a REGISTRATION_CERTIFICATE_TRUST_ANCHORS certificate');
        }
        credentials = checked.right.credentials as unknown as readonly Json[];
      }
      return { type: 'RegisterVerifier', data: { registrationCertificate: certificate, credentials, enforceRegistration: enforce } };
    },
  );
};
