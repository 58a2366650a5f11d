// The signing abstraction of src/crypto/signer.ts and the forms built on it: a compact JWS
// (src/crypto/jws.ts) that jose verifies, and a COSE_Sign1 (src/mdoc/cose.ts) that the mdoc
// verification checks; both refused under another key or once changed.
import { generateKeyPairSync } from 'node:crypto';
import test from 'ava';
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import { signCompactJws } from '../src/crypto/jws.js';
import { keySigner, p256PublicJwk } from '../src/crypto/signer.js';
import { encodeCbor } from '../src/mdoc/cbor.js';
import { parseCoseSign1, publicKeyOf, signCoseSign1, verifyCoseSign1 } from '../src/mdoc/cose.js';
import { rightOf } from './support/either.js';

const p256 = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });

test('keySigner: the public JWK is the key\'s, and its signatures are 64 bytes r||s', async (t) => {
  const { privateKey, publicKey } = p256();
  const signer = keySigner(privateKey);
  t.deepEqual(signer.publicJwk, p256PublicJwk(publicKey));
  t.deepEqual(Object.keys(signer.publicJwk).sort(), ['crv', 'kty', 'x', 'y']);
  t.is((await signer.sign(Buffer.from('data'))).length, 64);
  t.throws(() => keySigner(generateKeyPairSync('ed25519').privateKey), { message: 'the key is not a P-256 key' });
});

test('a compact JWS over an EcSigner verifies with jose (ES256, header as given), and not under another key or changed', async (t) => {
  const { privateKey } = p256();
  const signer = keySigner(privateKey);
  const jws = await signCompactJws(signer, { typ: 'example+jwt', x5c: ['AAAA'] }, { iss: 'https://issuer.example', n: 1 });
  t.deepEqual(decodeProtectedHeader(jws), { alg: 'ES256', typ: 'example+jwt', x5c: ['AAAA'] });
  const verified = await compactVerify(jws, await importJWK(signer.publicJwk, 'ES256'));
  t.deepEqual(JSON.parse(Buffer.from(verified.payload).toString('utf8')), { iss: 'https://issuer.example', n: 1 });
  await t.throwsAsync(compactVerify(jws, await importJWK(keySigner(p256().privateKey).publicJwk, 'ES256')));
  const [h, , s] = jws.split('.');
  const changed = `${h}.${Buffer.from(JSON.stringify({ iss: 'https://issuer.example', n: 2 })).toString('base64url')}.${s}`;
  await t.throwsAsync(compactVerify(changed, await importJWK(signer.publicJwk, 'ES256')));
});

test('a COSE_Sign1 over an EcSigner verifies (attached and detached), and not under another key or changed', async (t) => {
  const { privateKey } = p256();
  const signer = keySigner(privateKey);
  const payload = encodeCbor(new Map([['a', 1]]));
  const attached = rightOf(parseCoseSign1(await signCoseSign1(payload, signer), 'sign1'));
  t.true(verifyCoseSign1(attached, publicKeyOf(signer.publicJwk)));
  t.false(verifyCoseSign1(attached, publicKeyOf(keySigner(p256().privateKey).publicJwk)));
  t.false(verifyCoseSign1(attached, publicKeyOf(signer.publicJwk), encodeCbor(new Map([['a', 2]]))));
  const detached = rightOf(parseCoseSign1(await signCoseSign1(payload, signer, new Map(), { detached: true }), 'sign1'));
  t.is(detached.payload, null);
  t.true(verifyCoseSign1(detached, publicKeyOf(signer.publicJwk), payload));
});
