// `/verifier`: the tenant's registration as a relying party, a singleton resource
// (src/resources/singletons.ts), whose rules are registerVerifier.ts: the route reads the body (no
// unknown member), checks it before the Idempotency-Key is claimed, and registers on the revision
// If-Match names.
import type Router from '@koa/router';
import { isLeft } from 'fp-ts/lib/Either.js';
import { isRecord } from '../../streams/kernel.js';
import type { Json } from '../eventstore/port.js';
import { readJson } from '../http/body.js';
import { decode } from '../http/validate.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { problemOf } from './problems.js';
import { checkEnforcement, registerVerifier, REGISTRATION_MEMBERS, RegistrationBody, verifierKind, type Registration } from './registerVerifier.js';
import { singletonRoutes } from './singletons.js';

export const verifierRoutes = (router: Router, deps: ResourcesContext): void => {
  singletonRoutes(
    router,
    verifierKind,
    deps,
    async (ctx) => {
      const json = await readJson(ctx, { limitBytes: JSON_LIMIT });
      const unknown = isRecord(json) ? Object.keys(json).filter((m) => !REGISTRATION_MEMBERS.includes(m)) : [];
      if (unknown.length > 0) throw problemOf({ _tag: 'RegistrationRefused', member: unknown[0]!, message: `unknown member (known: ${REGISTRATION_MEMBERS.join(', ')})` });
      const checked = checkEnforcement(decode(RegistrationBody, json, 'body'));
      if (isLeft(checked)) throw problemOf(checked.left);
      return checked.right as Json;
    },
    async (request) => registerVerifier({ now: deps.now, trustAnchors: deps.config.registrationCertificateTrustAnchors }, request as Registration),
  );
};
