// The credential: an SD-JWT VC (`typ: dc+sd-jwt`), ES256, with the Issuer Signing Certificate
// chain in `x5c`. `iss`, `sub`, `iat`, `exp`, `vct`, `cnf` and `status` are always plain; each configured
// claim is disclosed by its `sd` rule (`allowed` is made selectively disclosable: the holder can
// always reveal it, and it cannot be hidden afterwards otherwise). Salts come from the CSPRNG.
// `sub` is the holder key's JWK Thumbprint URI (RFC 9278): the spec has the connector add it, and
// it says nothing `cnf` does not already say, so it adds no correlation; a configuration with
// `sub_jwk_thumbprint: false` issues none.
import { createHash, randomBytes } from 'node:crypto';
import { calculateJwkThumbprintUri } from 'jose';
import { signCompactJws } from '../../../crypto/jws.js';
import type { Json } from '../../../eventstore/port.js';
import { defineOwn, ownValue } from '../../../ownProperty.js';
import { valueAt } from '../../claims.js';
import type { SdJwtVcConfiguration } from '../../configurations.js';
import type { CredentialToSign } from '../../credentialSigner.js';
import type { IssuerSigningKey } from '../../signingKey.js';

type Node = { [name: string]: Json | string[] };

const digestOf = (disclosure: string): string => createHash('sha256').update(disclosure, 'ascii').digest('base64url');

export const signSdJwtVc = async (key: IssuerSigningKey, credential: CredentialToSign<SdJwtVcConfiguration>): Promise<string> => {
  const body: Node = {};
  const disclosures: string[] = [];
  const digestLists = new Set<string[]>();
  for (const claim of credential.configuration.claims) {
    const value = valueAt(credential.claims, claim.path);
    if (value === undefined) continue;
    let node = body;
    for (const step of claim.path.slice(0, -1)) {
      const inner = (ownValue(node, step) ?? {}) as Node;
      defineOwn(node, step, inner);
      node = inner;
    }
    const name = claim.path[claim.path.length - 1]!;
    if (claim.sd === 'never') {
      defineOwn(node, name, value);
      continue;
    }
    const disclosure = Buffer.from(JSON.stringify([randomBytes(16).toString('base64url'), name, value]), 'utf8').toString('base64url');
    disclosures.push(disclosure);
    const digests = (node['_sd'] ??= []) as string[];
    digests.push(digestOf(disclosure));
    digestLists.add(digests);
  }
  // Sorted, so a digest's position says nothing about which claim it hides.
  for (const digests of digestLists) digests.sort();
  const iat = Math.floor(credential.now.getTime() / 1000);
  const { kty, crv, x, y } = credential.holderJwk;
  const holderJwk = { kty, crv, x, y };
  const sub = credential.configuration.sub_jwk_thumbprint === false ? {} : { sub: await calculateJwkThumbprintUri(holderJwk, 'sha256') };
  const jwt = await signCompactJws(key.signer, { typ: 'dc+sd-jwt', x5c: [...key.x5c] }, {
    ...body,
    iss: credential.issuer,
    ...sub,
    iat,
    exp: iat + credential.validitySeconds,
    vct: credential.configuration.vct,
    cnf: { jwk: holderJwk },
    ...(credential.status ? { status: { status_list: { idx: credential.status.idx, uri: credential.status.uri } } } : {}),
    _sd_alg: 'sha-256',
  });
  return `${jwt}~${disclosures.map((d) => `${d}~`).join('')}`;
};

