// Resolving recipients without the network: did:peer:2 (DIF peer DID method, numalgo 2) with its
// abbreviated services, did:key routing keys, the did:web URL rule, and the refusals a message's
import { left } from 'fp-ts/lib/Either.js';
// creation turns into 400s; and the tenant's own key-agreement key.
import test from 'ava';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { tenantKeyAgreementKey, x25519PublicJwk } from '../src/didcomm/keyAgreement.js';
import { base58Decode, x25519FromMultibase } from '../src/didcomm/multibase.js';
import { checkRecipientDid, readDidDocument, resolveDid, resolveKey, type ResolveOptions } from '../src/didcomm/resolve.js';
import { base58btc, createAgent, createMediatorKey, x25519Multikey } from './support/didcommAgent.js';

const offline: ResolveOptions = { allowHttp: false, fetchDocument: async () => left('could not be resolved (ENOTFOUND)') };

const raw = (key: ReturnType<typeof createPublicKey>): string => String(key.export({ format: 'jwk' }).x);

test('base58btc decodes the usual vectors, leading zeros included', (t) => {
  t.is(base58Decode('2NEpo7TZRRrLZSi2U')?.toString('utf8'), 'Hello World!');
  t.deepEqual(base58Decode('11233QC4'), Buffer.from('0000287fb4cd', 'hex'));
  t.is(base58Decode('0OIl'), undefined, 'characters outside the alphabet');
  t.is(base58btc(Buffer.from('0000287fb4cd', 'hex')), '11233QC4', 'the test encoder agrees');
});

test('an X25519 multikey starts z6LS and decodes to its key; other keys do not decode', (t) => {
  const { publicKey } = generateKeyPairSync('x25519');
  const multikey = x25519Multikey(publicKey);
  t.true(multikey.startsWith('z6LS'));
  t.is(x25519FromMultibase(multikey)?.toString('base64url'), raw(publicKey));
  t.is(x25519FromMultibase('z6MkqRYqQiSgvZQdnBytw86Qbs2ZWUkGv22od935YF4s8M7V'), undefined, 'an Ed25519 key');
  t.is(x25519FromMultibase(multikey.slice(1)), undefined, 'without the multibase prefix');
});

test('a did:peer:2 resolves to its key-agreement keys (key-N in order) and its abbreviated DIDCommMessaging service', async (t) => {
  const agent = createAgent('https://agent.example/didcomm', ['did:key:z6LSroutingkey#z6LSroutingkey']);
  const resolved = await resolveDid(agent.did, offline);
  if (resolved._tag === 'Left') return t.fail(JSON.stringify(resolved.left));
  t.deepEqual(resolved.right.keyAgreement.map((k) => k.kid), [`${agent.did}#key-1`]);
  t.is(raw(resolved.right.keyAgreement[0]!.publicKey), raw(agent.publicKey));
  t.deepEqual(resolved.right.services, [
    { id: `${agent.did}#service`, uri: 'https://agent.example/didcomm', routingKeys: ['did:key:z6LSroutingkey#z6LSroutingkey'], accept: ['didcomm/v2'] },
  ]);
});

test('a did:peer:2 with an authentication key first numbers its keys in order; the legacy string endpoint form is read too', async (t) => {
  const { publicKey } = generateKeyPairSync('x25519');
  const service = Buffer.from(JSON.stringify({ t: 'dm', s: 'https://agent.example/legacy', r: [], a: ['didcomm/v2'] })).toString('base64url');
  const did = `did:peer:2.Vz6MkqRYqQiSgvZQdnBytw86Qbs2ZWUkGv22od935YF4s8M7V.E${x25519Multikey(publicKey)}.S${service}`;
  const resolved = await resolveDid(did, offline);
  if (resolved._tag === 'Left') return t.fail(JSON.stringify(resolved.left));
  t.deepEqual(resolved.right.keyAgreement.map((k) => k.kid), [`${did}#key-2`]);
  t.is(resolved.right.services[0]?.uri, 'https://agent.example/legacy');
});

test('a routing key did:key resolves to its X25519 key; one that names another key does not', async (t) => {
  const mediator = createMediatorKey();
  const key = await resolveKey(mediator.kid, offline);
  if (key._tag === 'Left') return t.fail(JSON.stringify(key.left));
  t.is(raw(key.right.publicKey), raw(mediator.publicKey));
  t.is((await resolveKey(`${mediator.did}#other`, offline))._tag, 'Left');
});

test('a did:web is read at https://host/path/did.json (or /.well-known/did.json), never http unless allowed; a failure says why, never naming the host', async (t) => {
  const asked: string[] = [];
  const recording = (allowHttp: boolean): ResolveOptions => ({ allowHttp, fetchDocument: async (url) => (asked.push(url.href), left('could not be resolved (ENOTFOUND)')) });
  const failed = await resolveDid('did:web:holder.example%3A8443:users:erika', recording(false));
  await resolveDid('did:web:holder.example', recording(false));
  await resolveDid('did:web:holder.example', recording(true));
  t.deepEqual(asked, ['https://holder.example:8443/users/erika/did.json', 'https://holder.example/.well-known/did.json', 'http://holder.example/.well-known/did.json']);
  t.deepEqual(failed, { _tag: 'Left', left: { _tag: 'DidNotResolved', reason: 'did:web document not read: could not be resolved (ENOTFOUND)' } });
});

test('a DID document is read for X25519 keys (JWK or multikey, relative or absolute ids) and DIDCommMessaging services only', (t) => {
  const did = 'did:web:holder.example';
  const a = generateKeyPairSync('x25519').publicKey;
  const b = generateKeyPairSync('x25519').publicKey;
  const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
  const read = readDidDocument(did, {
    id: did,
    verificationMethod: [
      { id: '#a', type: 'JsonWebKey2020', controller: did, publicKeyJwk: a.export({ format: 'jwk' }) },
      { id: `${did}#p256`, type: 'JsonWebKey2020', controller: did, publicKeyJwk: p256.export({ format: 'jwk' }) },
    ],
    keyAgreement: ['#a', `${did}#p256`, { id: '#b', type: 'Multikey', controller: did, publicKeyMultibase: x25519Multikey(b) }, '#missing'],
    service: [
      { id: '#web', type: 'LinkedDomains', serviceEndpoint: 'https://holder.example' },
      { id: '#dm', type: 'DIDCommMessaging', serviceEndpoint: [{ uri: 'https://holder.example/dc', routingKeys: [] }] },
    ],
  });
  if (read._tag === 'Left') return t.fail();
  t.deepEqual(read.right.keyAgreement.map((k) => k.kid), [`${did}#a`, `${did}#b`]);
  t.deepEqual(read.right.services.map((s) => [s.id, s.uri]), [[`${did}#dm`, 'https://holder.example/dc']]);
  t.is(readDidDocument(did, { id: 'did:web:someone.else' })._tag, 'Left', 'a document of another DID');
});

test('only did:peer:2 and did:web recipients can be sent to; malformed ones are refused before anything is recorded', (t) => {
  const refusal = (did: string) => {
    const checked = checkRecipientDid(did);
    return checked._tag === 'Left' ? checked.left : undefined;
  };
  t.deepEqual(refusal('did:example:bob'), { _tag: 'UnsupportedDidMethod', method: 'example' });
  t.deepEqual(refusal('did:key:z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc'), { _tag: 'UnsupportedDidMethod', method: 'key' });
  t.deepEqual(refusal('did:peer:4zQm'), { _tag: 'UnsupportedDidMethod', method: 'peer (numalgo 4)' });
  t.like(refusal('mailto:bob@example.com'), { _tag: 'InvalidDid' });
  t.like(refusal('did:peer:2'), { _tag: 'InvalidDid' });
  t.like(refusal('did:peer:2.Xz6LSabc'), { _tag: 'InvalidDid' });
  t.like(refusal('did:peer:2.Sbm90IGpzb24'), { _tag: 'InvalidDid' });
  t.like(refusal('did:web:'), { _tag: 'InvalidDid' });
  t.like(refusal('did:web:holder.example::x'), { _tag: 'InvalidDid' });
  t.like(refusal('did:web:user@holder.example'), { _tag: 'InvalidDid' });
  t.is(refusal('did:web:holder.example%3A8443:users:erika'), undefined);
  t.is(refusal(createAgent('https://agent.example/').did), undefined);
});

test('the tenant key-agreement key is derived: the same for one tenant and key-encryption key, different for another of either', (t) => {
  const kek = Buffer.alloc(32, 1);
  const x = (k: Buffer, tenant: string) => x25519PublicJwk(tenantKeyAgreementKey(k, tenant)).x;
  t.is(x(kek, 'tenant-a'), x(Buffer.alloc(32, 1), 'tenant-a'));
  t.not(x(kek, 'tenant-a'), x(kek, 'tenant-b'));
  t.not(x(kek, 'tenant-a'), x(Buffer.alloc(32, 2), 'tenant-a'));
  t.is(Buffer.from(x(kek, 'tenant-a'), 'base64url').length, 32);
});
