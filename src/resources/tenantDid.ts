// The tenant's did:web document. `did:web:<PUBLIC_URL host>:tenants:<tenant id>` resolves (by
// the did:web rules) to `{PUBLIC_URL}/tenants/<tenant id>/did.json`, served by the public
// listener. Its keys, a P-256 key and the DIDComm key-agreement key (X25519,
// src/didcomm/keyAgreement.ts), are derived (HKDF, each under its own label) from the
// key-encryption key and the tenant id: every instance derives the same keys, and nothing is stored.
import { createECDH, createHash, hkdfSync } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { findTenant } from '../../projections/tenants.js';
import { KEY_AGREEMENT_FRAGMENT, tenantKeyAgreementKey, x25519PublicJwk } from '../didcomm/keyAgreement.js';
import type { Json } from '../eventstore/port.js';
import { HttpError, notFound } from '../http/problem.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { noneMatchHits } from '../http/conditional.js';
import type { ResourcesContext } from './context.js';

// The order of the P-256 group: a private scalar must be in [1, n-1].
const P256_ORDER = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');

/** The tenant's public P-256 key as a JWK. Nothing signs with the private half yet. */
const tenantPublicJwk = (kek: Buffer, tenantId: string): { kty: string; crv: string; x: string; y: string } => {
  for (let counter = 0; counter < 16; counter++) {
    const d = Buffer.from(hkdfSync('sha256', kek, Buffer.from(tenantId, 'utf8'), `tenant did key ${counter}`, 32));
    const scalar = BigInt(`0x${d.toString('hex')}`);
    if (scalar === 0n || scalar >= P256_ORDER) continue;
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(d);
    const point = ecdh.getPublicKey();
    return { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') };
  }
  throw new Error('no P-256 scalar derived');
};

/** did:web of a tenant under PUBLIC_URL: host (with its port percent-encoded), then path segments. */
export const tenantDid = (publicUrl: string, tenantId: string): string => {
  const url = new URL(publicUrl);
  const segments = url.pathname.split('/').filter((s) => s !== '').map(encodeURIComponent);
  return ['did:web', encodeURIComponent(url.host), ...segments, 'tenants', tenantId].join(':');
};

const didDocument = (publicUrl: string, kek: Buffer, tenantId: string): Json => {
  const id = tenantDid(publicUrl, tenantId);
  const key = `${id}#key-1`;
  const keyAgreement = `${id}#${KEY_AGREEMENT_FRAGMENT}`;
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
    id,
    verificationMethod: [
      { id: key, type: 'JsonWebKey2020', controller: id, publicKeyJwk: tenantPublicJwk(kek, tenantId) },
      { id: keyAgreement, type: 'JsonWebKey2020', controller: id, publicKeyJwk: x25519PublicJwk(tenantKeyAgreementKey(kek, tenantId)) },
    ],
    authentication: [key],
    assertionMethod: [key],
    keyAgreement: [keyAgreement],
  };
};

const answer = (ctx: Context, document: Json): void => {
  const etag = `"${createHash('sha256').update(JSON.stringify(document)).digest('base64url').slice(0, 27)}"`;
  ctx.set('ETag', etag);
  if (noneMatchHits(ctx, etag)) {
    ctx.status = 304;
    return;
  }
  ctx.body = document;
};

export const tenantDidRoutes = (router: Router, deps: ResourcesContext, kek: Buffer): Router => {
  router.get('/did', requireScope('resources'), (ctx) => answer(ctx, didDocument(deps.config.publicUrl, kek, principalOf(ctx).tenantId)));

  const publicRouter = new Router();
  publicRouter.get('/tenants/:tenantId/did.json', (ctx) => {
    const tenantId = String(ctx.params['tenantId']);
    if (!findTenant(deps.runner.db, tenantId)) throw new HttpError(notFound());
    answer(ctx, didDocument(deps.config.publicUrl, kek, tenantId));
  });
  return publicRouter;
};
