// The `signing-keys` kind (issue 38): a tenant's own signing keys (streams/signingKey.ts), made in the
// deployment's key store (src/crypto/tenantKeys.ts), each with a CSR for its role; certified by a
// CA the tenant chooses (PUT .../certificate) or at once by the deployment's development CA
// (`development_chain`, ALLOW_DEVELOPMENT_CHAINS); activated as the tenant's key of its role, which
// retires the key it replaces. The features sign with the active key through TenantSigningKeys
// (src/tenantIdentity/signingKeys.ts). Scope `admin`: a tenant's keys are its identity.
import { randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { exportJWK } from 'jose';
import { findLatest, findOtherActiveSigningKeys, findTenantResourcesOfKind } from '../../projections/resources.js';
import { StringMap } from '../../streams/resource.js';
import {
  SIGNING_KEY_KIND,
  signingKey,
  signingKeyStream,
  SigningKeyRole,
  type CertificateFacts,
  type Command,
  type DomainError,
  type SigningKeyEvent,
} from '../../streams/signingKey.js';
import { certificationRequest, publicCryptoKey } from '../crypto/certificationRequest.js';
import { certificatesFromPem, certificatesToPem, EC_P256, hostSubjectAltName, namesIssuer, type SubjectAltName } from '../crypto/certificates.js';
import type { KeyStore } from '../crypto/keyStore.js';
import { certifyWithDevelopmentCa, loadDevelopmentCa } from '../crypto/signingIdentity.js';
import type { x509 } from '../crypto/x509.js';
import { handleCommand } from '../eventstore/handle.js';
import { readJson } from '../http/body.js';
import { requireIfMatch } from '../http/conditional.js';
import { forbidden, HttpError, invalidRequest } from '../http/problem.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { tenantCredentialIssuer } from '../tenantIdentity/ports.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { resourceReply, wireEnvelope } from './envelope.js';
import type { VersionedKind } from './kind.js';
import { problemOf } from './problems.js';
import { addressOf, createResource, metadataOf, updateRoute, versionedRoutes } from './routes.js';
import { updateResource } from './update.js';

export const signingKeysKind: VersionedKind<SigningKeyEvent, Command, DomainError> = {
  path: 'signing-keys',
  name: SIGNING_KEY_KIND.name,
  scope: 'admin',
  decider: signingKey,
  streamOf: signingKeyStream,
  search: { filters: { role: 'EQUAL_STRING', state: 'EQUAL_STRING' }, sorts: {} },
};

const CreateBody = t.exact(
  t.intersection([t.type({ role: SigningKeyRole }), t.partial({ development_chain: t.boolean, annotations: StringMap, labels: StringMap })]),
);
const CertificateBody = t.exact(t.type({ chain: t.string }));

/**
 * The subject and subjectAltNames a key of `role` is certified with: an issuer key names the
 * tenant's credential issuer identifier (a URI, and its host as a dNSName: what wallets match
 * `iss` against, ISO 18013-5 and HAIP); an access key names PUBLIC_URL's host, where its request
 * objects are served.
 */
export const namesFor = (publicUrl: string, tenantId: string, role: SigningKeyRole): { commonName: string; subjectAltNames: SubjectAltName[] } => {
  if (role === 'issuer') {
    const issuer = tenantCredentialIssuer(publicUrl, tenantId);
    return { commonName: `tenant ${tenantId} issuer`, subjectAltNames: [{ type: 'url', value: issuer }, hostSubjectAltName(issuer)] };
  }
  return { commonName: `tenant ${tenantId} access`, subjectAltNames: [hostSubjectAltName(publicUrl)] };
};

const chainProblem = (message: string): HttpError => new HttpError(invalidRequest(message, [{ location: 'body.chain', message, value: undefined }]));

/** What the certificate rules decide on (streams/signingKey.ts), read from the chain. */
const factsOf = async (chain: readonly x509.X509Certificate[], issuer: string): Promise<CertificateFacts> => {
  const [leaf] = chain;
  if (!leaf) throw chainProblem('the chain holds no certificate');
  let leafKey: CertificateFacts['leafKey'];
  try {
    const jwk = await exportJWK(await leaf.publicKey.export(EC_P256, ['verify']));
    leafKey = jwk.crv === 'P-256' && jwk.x && jwk.y ? { x: jwk.x, y: jwk.y } : undefined;
  } catch {
    leafKey = undefined;
  }
  const links = await Promise.all(chain.slice(1).map((next, i) => chain[i]!.verify({ publicKey: next.publicKey, signatureOnly: true }).catch(() => false)));
  return {
    certificate: { chain: certificatesToPem(chain), notBefore: leaf.notBefore.toISOString(), notAfter: leaf.notAfter.toISOString() },
    leafKey,
    chainLinked: links.every(Boolean),
    namesCredentialIssuer: namesIssuer(leaf, issuer),
  };
};

export const signingKeyRoutes = (router: Router, deps: ResourcesContext, keys: Pick<KeyStore, 'tenantKeys'>): void => {
  const scope = requireScope(signingKeysKind.scope);
  const { publicUrl } = deps.config;
  let developmentCa: ReturnType<typeof loadDevelopmentCa> | undefined;
  const ca = () => (developmentCa ??= loadDevelopmentCa(deps.config.dataDir, `${new URL(publicUrl).hostname} development CA for tenant keys`).catch((err: unknown) => {
    developmentCa = undefined;
    throw err;
  }));

  router.get('/signing-keys', scope, (ctx) => {
    ctx.body = { items: findTenantResourcesOfKind(deps.runner.db, principalOf(ctx).tenantId, SIGNING_KEY_KIND.name).map((e) => wireEnvelope(e)) };
  });

  router.post('/signing-keys', scope, async (ctx) => {
    const body = decode(CreateBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    if (body.development_chain && !deps.config.allowDevelopmentChains) {
      throw new HttpError(forbidden('This deployment makes no development chains (ALLOW_DEVELOPMENT_CHAINS=false): certify the key with PUT /signing-keys/{id}/certificate.'));
    }
    const tenantId = principalOf(ctx).tenantId;
    await deps.idempotent(ctx, body, async () => {
      const keyId = randomUUID();
      const { role } = body;
      const key = await keys.tenantKeys.generate({ tenantId, keyId, role }, deps.dataKeys);
      const { commonName, subjectAltNames } = namesFor(publicUrl, tenantId, role);
      const csr = await certificationRequest(key.signer, { commonName }, subjectAltNames);
      const chain = body.development_chain ? await certifyWithDevelopmentCa(await ca(), commonName, subjectAltNames, await publicCryptoKey(key.signer)) : undefined;
      const [leaf] = chain ?? [];
      const certificate = chain && leaf ? { chain: certificatesToPem(chain), notBefore: leaf.notBefore.toISOString(), notAfter: leaf.notAfter.toISOString() } : null;
      const at = deps.now().toISOString();
      const create = {
        type: 'CreateSigningKey',
        data: { keyId, tenantId, role, publicJwk: key.publicJwk, material: key.material, csr, certificate, annotations: body.annotations ?? {}, labels: body.labels ?? {}, at },
      } as const;
      // A key whose creation is not recorded is never used: it is destroyed again.
      return createResource(deps, signingKeysKind, ctx, keyId, create, () => keys.tenantKeys.destroy(keyId, key.material, deps.dataKeys));
    });
  });

  router.put(
    '/signing-keys/:id/certificate',
    scope,
    updateRoute(
      signingKeysKind,
      deps,
      async (ctx) => decode(CertificateBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body'),
      async ({ chain: pem }, ctx) => {
        let chain: x509.X509Certificate[];
        try {
          chain = certificatesFromPem(pem);
        } catch {
          throw chainProblem('not a PEM certificate chain (CERTIFICATE blocks, leaf first)');
        }
        const facts = await factsOf(chain, tenantCredentialIssuer(publicUrl, principalOf(ctx).tenantId));
        return { type: 'AttachCertificate', data: { ...facts } };
      },
    ),
  );

  router.post('/signing-keys/:id/activate', scope, async (ctx: Context) => {
    const address = addressOf(ctx, signingKeysKind);
    const ifMatch = requireIfMatch(ctx);
    await deps.idempotent(ctx, {}, async () => {
      const at = deps.now().toISOString();
      const metadata = metadataOf(ctx);
      const activated = await updateResource(deps.store, signingKeysKind, { tenantId: address.tenantId, id: address.id, ifMatch, at }, { type: 'ActivateSigningKey', data: {} }, metadata);
      if (isLeft(activated)) throw problemOf(activated.left);
      await deps.runner.waitFor(activated.right.position, deps.config.readYourWritesTimeoutMs);
      // The key it replaces: retired on its own stream, after this one became active (should this
      // step not happen, the key activated last is still the one that signs).
      const role = activated.right.envelope.data['role'] as SigningKeyRole;
      for (const other of findOtherActiveSigningKeys(deps.runner.db, address.tenantId, role, address.id)) {
        const retire = { type: 'RetireSigningKey', data: { tenantId: address.tenantId, id: other, ifMatch: () => true, at, replacedBy: address.id } } as const;
        const retired = await handleCommand(deps.store, signingKey, signingKeyStream(other), retire, { commandId: randomUUID(), metadata });
        if (isLeft(retired)) throw new Error(`signing key ${other} not retired: ${retired.left.error._tag}`);
        // Retired meanwhile by another activation: nothing recorded.
        if (retired.right.position) await deps.runner.waitFor(retired.right.position, deps.config.readYourWritesTimeoutMs);
      }
      const current = findLatest(deps.runner.db, address);
      return resourceReply(current ?? activated.right.envelope);
    });
  });

  versionedRoutes(router, signingKeysKind, deps);
};
