// Certifying a signing key (the use case, no HTTP; issue 38): the chain a CA the tenant chose
// issued, read into the facts the certificate rules decide on (streams/signingKey.ts: the leaf
// holds the key, each certificate is signed by the next, the leaf is valid now, it names the
// tenant's credential issuer), and recorded on the key's stream if they hold.
import * as t from 'io-ts';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { exportJWK } from 'jose';
import type { Target } from '../../streams/resource.js';
import type { CertificateFacts } from '../../streams/signingKey.js';
import { certificatesFromPem, certificatesToPem, EC_P256, namesIssuer } from '../crypto/certificates.js';
import type { x509 } from '../crypto/x509.js';
import type { EventMetadata } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import { tenantCredentialIssuer } from '../tenantIdentity/ports.js';
import type { KindRefusal } from './kind.js';
import { signingKeysKind } from './signingKeysKind.js';
import { updateResource, type Updated, type UpdateError } from './update.js';

/** `PUT /signing-keys/{id}/certificate`: the request's body. */
export const CertificateBody = t.exact(t.type({ chain: t.string }));

/** The uploaded chain cannot be read at all (400 at `body.chain`); the rules it breaks are the decider's. */
export type ChainUnreadable = { readonly _tag: 'ChainUnreadable'; readonly reason: 'not_pem' | 'empty' };

/** What the certificate rules decide on, read from the chain. */
const factsOf = async (chain: readonly x509.X509Certificate[], issuer: string): Promise<Either<ChainUnreadable, CertificateFacts>> => {
  const [leaf] = chain;
  if (!leaf) return left({ _tag: 'ChainUnreadable', reason: 'empty' });
  let leafKey: CertificateFacts['leafKey'];
  try {
    const jwk = await exportJWK(await leaf.publicKey.export(EC_P256, ['verify']));
    leafKey = jwk.crv === 'P-256' && jwk.x && jwk.y ? { x: jwk.x, y: jwk.y } : undefined;
  } catch {
    leafKey = undefined;
  }
  const links = await Promise.all(chain.slice(1).map((next, i) => chain[i]!.verify({ publicKey: next.publicKey, signatureOnly: true }).catch(() => false)));
  return right({
    certificate: { chain: certificatesToPem(chain), notBefore: leaf.notBefore.toISOString(), notAfter: leaf.notAfter.toISOString() },
    leafKey,
    chainLinked: links.every(Boolean),
    namesCredentialIssuer: namesIssuer(leaf, issuer),
  });
};

/** Attaches the PEM chain (leaf first) to the key `target` names, where the certificate rules and If-Match allow. */
export const certifySigningKey = async (
  deps: { readonly store: EventStore; readonly publicUrl: string },
  target: Target,
  pem: string,
  metadata: EventMetadata,
): Promise<Either<ChainUnreadable | UpdateError<KindRefusal>, Updated>> => {
  let chain: x509.X509Certificate[];
  try {
    chain = certificatesFromPem(pem);
  } catch {
    return left({ _tag: 'ChainUnreadable', reason: 'not_pem' });
  }
  const facts = await factsOf(chain, tenantCredentialIssuer(deps.publicUrl, target.tenantId));
  if (facts._tag === 'Left') return facts;
  return updateResource(deps.store, signingKeysKind, target, { type: 'AttachCertificate', data: { ...facts.right } }, metadata);
};
