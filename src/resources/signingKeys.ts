// The routes of the `signing-keys` kind (issue 38; src/resources/signingKeysKind.ts): a tenant's
// own signing keys, made in the deployment's key store with a CSR for their role
// (createSigningKey.ts), certified by a CA the tenant chooses (PUT .../certificate,
// certifySigningKey.ts) or at once by the deployment's development CA (`development_chain`,
// ALLOW_DEVELOPMENT_CHAINS), activated as the tenant's key of its role, which retires the key it
// replaces (activateSigningKey.ts). The features sign with the active key through
// TenantSigningKeys (src/tenantIdentity/signingKeys.ts). Each route parses, calls its use case
// and answers its refusals through problems.ts.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import { findTenantResourcesOfKind } from '../../projections/resources.js';
import { SIGNING_KEY_KIND } from '../../streams/signingKey.js';
import type { KeyStore } from '../crypto/keyStore.js';
import { loadDevelopmentCa } from '../crypto/signingIdentity.js';
import { readJson } from '../http/body.js';
import { requireIfMatch } from '../http/conditional.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { activateSigningKey } from './activateSigningKey.js';
import { CertificateBody, certifySigningKey } from './certifySigningKey.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { checkDevelopmentChain, CreateSigningKeyBody, createSigningKey, type CreateSigningKeyDeps } from './createSigningKey.js';
import { resourceReply, wireEnvelope } from './envelope.js';
import { problemOf } from './problems.js';
import { addressOf, answerCreated, metadataOf, rendered, versionedRoutes } from './routes.js';
import { signingKeysKind } from './signingKeysKind.js';

export const signingKeyRoutes = (router: Router, deps: ResourcesContext, keys: Pick<KeyStore, 'tenantKeys'>): void => {
  const scope = requireScope(signingKeysKind.scope);
  const { publicUrl } = deps.config;
  let developmentCa: ReturnType<typeof loadDevelopmentCa> | undefined;
  const creating: CreateSigningKeyDeps = {
    store: deps.store,
    tenantKeys: keys.tenantKeys,
    dataKeys: deps.dataKeys,
    publicUrl,
    allowDevelopmentChains: deps.config.allowDevelopmentChains,
    developmentCa: () =>
      (developmentCa ??= loadDevelopmentCa(deps.config.dataDir, `${new URL(publicUrl).hostname} development CA for tenant keys`).catch((err: unknown) => {
        developmentCa = undefined;
        throw err;
      })),
  };

  router.get('/signing-keys', scope, (ctx) => {
    ctx.body = { items: findTenantResourcesOfKind(deps.runner.db, principalOf(ctx).tenantId, SIGNING_KEY_KIND.name).map((e) => wireEnvelope(e)) };
  });

  router.post('/signing-keys', scope, async (ctx) => {
    const body = decode(CreateSigningKeyBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    // Refused before the Idempotency-Key is claimed.
    const allowed = checkDevelopmentChain(creating, body);
    if (isLeft(allowed)) throw problemOf(allowed.left);
    const tenantId = principalOf(ctx).tenantId;
    await deps.idempotent(ctx, body, async () => {
      const created = await createSigningKey(creating, { ...body, tenantId, at: deps.now().toISOString() }, metadataOf(ctx));
      if (isLeft(created)) throw problemOf(created.left);
      return answerCreated(deps, signingKeysKind, ctx, created.right);
    });
  });

  router.put('/signing-keys/:id/certificate', scope, async (ctx: Context) => {
    const address = addressOf(ctx, signingKeysKind);
    const ifMatch = requireIfMatch(ctx);
    const body = decode(CertificateBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    await deps.idempotent(ctx, body, async () => {
      const target = { tenantId: address.tenantId, id: address.id, ifMatch, at: deps.now().toISOString() };
      const certified = await certifySigningKey({ store: deps.store, publicUrl }, target, body.chain, metadataOf(ctx));
      if (isLeft(certified)) throw problemOf(certified.left);
      await deps.runner.waitFor(certified.right.position, deps.config.readYourWritesTimeoutMs);
      return resourceReply(await rendered(signingKeysKind, ctx, certified.right.envelope));
    });
  });

  router.post('/signing-keys/:id/activate', scope, async (ctx: Context) => {
    const address = addressOf(ctx, signingKeysKind);
    const ifMatch = requireIfMatch(ctx);
    await deps.idempotent(ctx, {}, async () => {
      const target = { tenantId: address.tenantId, id: address.id, ifMatch, at: deps.now().toISOString() };
      const activated = await activateSigningKey({ store: deps.store, runner: deps.runner, readYourWritesTimeoutMs: deps.config.readYourWritesTimeoutMs }, target, metadataOf(ctx));
      if (isLeft(activated)) throw problemOf(activated.left);
      return resourceReply(activated.right);
    });
  });

  versionedRoutes(router, signingKeysKind, deps);
};
