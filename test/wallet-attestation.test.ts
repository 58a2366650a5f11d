// Wallet attestation client authentication (src/issuance/walletAttestation.ts): an attestation
// from a trusted wallet provider with a fresh, unused PoP for this issuer is accepted; every other
// one is refused with the reason, over a real SQLite store (the PoP's jti is spent there).
import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { x5cOf } from '../src/crypto/certificates.js';
import { trustAnchorCertificates } from '../src/trust/trustAnchors.js';
import { walletProviderTrust } from '../src/trust/walletProviderTrust.js';
import { authenticateWallet, type WalletAttestationCheck } from '../src/issuance/walletAttestation.js';
import type { EventStore } from '../src/eventstore/port.js';
import { newWalletKey, thumbprint, type WalletKey } from '../wallet/keys.js';
import { attestationPop, createWalletProvider, walletAttestation, type WalletProvider } from '../wallet/walletProvider.js';
import { withStoreDir } from './support/readmodels.js';

const ISSUER = 'https://issuer.example';
const CLIENT = 'wallet-client-1';
const now = () => Math.floor(Date.now() / 1000);

let provider: WalletProvider;
let untrusted: WalletProvider;
let expiredProvider: WalletProvider;
let instance: WalletKey;

test.before(async () => {
  provider = await createWalletProvider();
  untrusted = await createWalletProvider({ name: 'Unknown Wallet Provider' });
  expiredProvider = await createWalletProvider({ name: 'Expired Wallet Provider', notAfter: new Date(Date.now() - 60_000) });
  instance = await newWalletKey();
});

const check = async (store: EventStore, attestation: string | undefined, pop: string | undefined, more: Partial<WalletAttestationCheck> = {}) =>
  authenticateWallet(store, {
    attestation,
    pop,
    clientId: CLIENT,
    issuer: ISSUER,
    walletProviders: walletProviderTrust(trustAnchorCertificates([provider.anchor, expiredProvider.anchor]), undefined),
    now: new Date(),
    maxAgeSeconds: 60,
    ...more,
  });

const refusedWith = (t: ExecutionContext, result: Awaited<ReturnType<typeof check>>, reason: RegExp) => {
  t.like(result, { ok: false });
  t.regex(result.ok ? '' : result.reason, reason);
};

const valid = async (p = provider) => walletAttestation(p, { clientId: CLIENT, instanceJwk: instance.publicJwk });
const pop = (o: Partial<Parameters<typeof attestationPop>[1]> = {}) => attestationPop(instance, { clientId: CLIENT, audience: ISSUER, ...o });

test('an attestation chaining to a trusted wallet provider with a fresh PoP for this issuer authenticates the wallet', async (t) => {
  await withStoreDir('attestation-', async (_dir, store) => {
    const result = await check(store, await valid(), await pop());
    t.deepEqual(result, {
      ok: true,
      wallet: {
        clientId: CLIENT,
        walletProvider: provider.issuer,
        walletProviderCertificate: provider.certificate.subject,
        walletName: 'Connector test wallet',
        keyThumbprint: await thumbprint(instance.publicJwk),
      },
    });
  });
});

test('a PoP without iss (the later drafts) is accepted too', async (t) => {
  await withStoreDir('attestation-', async (_dir, store) => {
    const withoutIss = await new SignJWT({ aud: ISSUER, jti: randomUUID(), iat: now() })
      .setProtectedHeader({ alg: 'ES256', typ: 'oauth-client-attestation-pop+jwt' })
      .sign(instance.privateKey);
    t.like(await check(store, await valid(), withoutIss), { ok: true });
  });
});

test('no attestation is refused as missing; half of one as malformed', async (t) => {
  await withStoreDir('attestation-', async (_dir, store) => {
    t.like(await check(store, undefined, undefined), { ok: false, missing: true });
    refusedWith(t, await check(store, await valid(), undefined), /exactly one/);
    refusedWith(t, await check(store, 'not-a-jwt', await pop()), /not a JWT/);
  });
});

test('an attestation from an untrusted wallet provider is refused', async (t) => {
  await withStoreDir('attestation-', async (_dir, store) => {
    refusedWith(t, await check(store, await valid(untrusted), await pop()), /not from a trusted wallet provider/);
  });
});

test('an attestation whose provider certificate has expired is refused', async (t) => {
  await withStoreDir('attestation-', async (_dir, store) => {
    refusedWith(t, await check(store, await valid(expiredProvider), await pop()), /expired/);
  });
});

test('an expired attestation is refused', async (t) => {
  await withStoreDir('attestation-', async (_dir, store) => {
    const expired = await walletAttestation(provider, { clientId: CLIENT, instanceJwk: instance.publicJwk, exp: now() - 60 });
    refusedWith(t, await check(store, expired, await pop()), /has expired/);
  });
});

test('an attestation with another typ, or signed by a key other than its x5c leaf, is refused', async (t) => {
  await withStoreDir('attestation-', async (_dir, store) => {
    refusedWith(t, await check(store, await walletAttestation(provider, { clientId: CLIENT, instanceJwk: instance.publicJwk, typ: 'JWT' }), await pop()), /typed/);
    const forged = await new SignJWT({ iss: provider.issuer, sub: CLIENT, cnf: { jwk: instance.publicJwk }, exp: now() + 600 })
      .setProtectedHeader({ alg: 'ES256', typ: 'oauth-client-attestation+jwt', x5c: x5cOf([provider.certificate]) })
      .sign(instance.privateKey);
    refusedWith(t, await check(store, forged, await pop()), /signature/);
  });
});

test('an attestation whose sub is not the client_id is refused', async (t) => {
  await withStoreDir('attestation-', async (_dir, store) => {
    refusedWith(t, await check(store, await valid(), await pop(), { clientId: 'another-client' }), /sub is not the client_id/);
  });
});

test('an attestation without cnf.jwk is refused', async (t) => {
  await withStoreDir('attestation-', async (_dir, store) => {
    const noCnf = await new SignJWT({ iss: provider.issuer, sub: CLIENT, exp: now() + 600 })
      .setProtectedHeader({ alg: 'ES256', typ: 'oauth-client-attestation+jwt', x5c: x5cOf([provider.certificate]) })
      .sign(provider.privateKey);
    refusedWith(t, await check(store, noCnf, await pop()), /cnf\.jwk/);
  });
});

test('a PoP with another aud, an old iat, another iss, or not signed by cnf.jwk is refused', async (t) => {
  await withStoreDir('attestation-', async (_dir, store) => {
    const attestation = await valid();
    refusedWith(t, await check(store, attestation, await pop({ audience: 'https://other-issuer.example' })), /aud must be/);
    refusedWith(t, await check(store, attestation, await pop({ iat: now() - 600 })), /not fresh/);
    refusedWith(t, await check(store, attestation, await attestationPop(instance, { clientId: 'someone-else', audience: ISSUER })), /iss is not the client_id/);
    refusedWith(t, await check(store, attestation, await attestationPop(await newWalletKey(), { clientId: CLIENT, audience: ISSUER })), /not signed by the attestation's cnf\.jwk/);
  });
});

test('a PoP whose jti was seen before is refused: it is used once', async (t) => {
  await withStoreDir('attestation-', async (_dir, store) => {
    const attestation = await valid();
    const jti = randomUUID();
    t.like(await check(store, attestation, await pop({ jti })), { ok: true });
    refusedWith(t, await check(store, attestation, await pop({ jti })), /already used/);
  });
});
