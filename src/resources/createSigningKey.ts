// Creating a signing key (the use case, no HTTP; issue 38): a key made in the deployment's key
// store (src/crypto/tenantKeys.ts) with a CSR naming what its role is certified for and, where the
// deployment allows development chains and the request asks, a chain of the development CA at
// once. A key whose creation is not recorded is never used: it is destroyed again.
import { randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { StringMap } from '../../streams/resource.js';
import { SigningKeyRole } from '../../streams/signingKey.js';
import { certificationRequest, publicCryptoKey } from '../crypto/certificationRequest.js';
import { certificatesToPem, hostSubjectAltName, type SubjectAltName } from '../crypto/certificates.js';
import type { DataKeys } from '../crypto/dataKeys.js';
import { certifyWithDevelopmentCa, type loadDevelopmentCa } from '../crypto/signingIdentity.js';
import type { TenantKeyStore } from '../crypto/tenantKeys.js';
import type { EventMetadata } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import { tenantCredentialIssuer } from '../tenantIdentity/ports.js';
import { recordCreation, type Recorded } from './create.js';
import { signingKeysKind } from './signingKeysKind.js';

/** `POST /signing-keys`: the request's body. */
export const CreateSigningKeyBody = t.exact(
  t.intersection([t.type({ role: SigningKeyRole }), t.partial({ development_chain: t.boolean, annotations: StringMap, labels: StringMap })]),
);
export type CreateSigningKeyRequest = t.TypeOf<typeof CreateSigningKeyBody> & { readonly tenantId: string; readonly at: string };

/** A development chain asked of a deployment that makes none (ALLOW_DEVELOPMENT_CHAINS=false): 403. */
export type DevelopmentChainsOff = { readonly _tag: 'DevelopmentChainsOff' };

export interface CreateSigningKeyDeps {
  readonly store: EventStore;
  readonly tenantKeys: Pick<TenantKeyStore, 'generate' | 'destroy'>;
  readonly dataKeys: DataKeys;
  readonly publicUrl: string;
  readonly allowDevelopmentChains: boolean;
  /** The deployment's development CA, loaded (or made) when a request first asks for a chain. */
  readonly developmentCa: () => ReturnType<typeof loadDevelopmentCa>;
}

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

/** Whether the deployment makes the development chain the request asks for. */
export const checkDevelopmentChain = (deps: Pick<CreateSigningKeyDeps, 'allowDevelopmentChains'>, request: { readonly development_chain?: boolean }): Either<DevelopmentChainsOff, void> =>
  request.development_chain && !deps.allowDevelopmentChains ? left({ _tag: 'DevelopmentChainsOff' }) : right(undefined);

/** Makes the key and records its creation: `pending` with its CSR, or `certified` with a development chain. */
export const createSigningKey = async (deps: CreateSigningKeyDeps, request: CreateSigningKeyRequest, metadata: EventMetadata): Promise<Either<DevelopmentChainsOff, Recorded>> => {
  const allowed = checkDevelopmentChain(deps, request);
  if (allowed._tag === 'Left') return allowed;
  const { tenantId, role } = request;
  const keyId = randomUUID();
  const key = await deps.tenantKeys.generate({ tenantId, keyId, role }, deps.dataKeys);
  const { commonName, subjectAltNames } = namesFor(deps.publicUrl, tenantId, role);
  const csr = await certificationRequest(key.signer, { commonName }, subjectAltNames);
  const chain = request.development_chain ? await certifyWithDevelopmentCa(await deps.developmentCa(), commonName, subjectAltNames, await publicCryptoKey(key.signer)) : undefined;
  const [leaf] = chain ?? [];
  const certificate = chain && leaf ? { chain: certificatesToPem(chain), notBefore: leaf.notBefore.toISOString(), notAfter: leaf.notAfter.toISOString() } : null;
  const create = {
    type: 'CreateSigningKey',
    data: { keyId, tenantId, role, publicJwk: key.publicJwk, material: key.material, csr, certificate, annotations: request.annotations ?? {}, labels: request.labels ?? {}, at: request.at },
  } as const;
  return right(await recordCreation(deps.store, signingKeysKind, keyId, create, metadata, () => deps.tenantKeys.destroy(keyId, key.material, deps.dataKeys)));
};
