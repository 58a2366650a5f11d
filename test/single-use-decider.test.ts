// The single-use deciders (c_nonce, DPoP proof, wallet attestation PoP) in given / when / then form, and the store's part:
// of several uses of one value at once, decided without a read, exactly one is recorded.
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { left, right } from 'fp-ts/lib/Either.js';
import { clientAttestationPop, type ClientAttestationPopEvent } from '../streams/clientAttestationPop.js';
import { cNonce, cNonceStream, type CNonceEvent } from '../streams/cNonce.js';
import { dpopProof, type DpopProofEvent } from '../streams/dpopProof.js';
import { spendOnce } from '../src/issuance/singleUse.js';
import { givenWhen } from './support/decider.js';
import { openStore } from './support/readmodels.js';

const nonceUse = { usedAt: '2026-05-01T10:00:00.000Z', expiresAt: '2026-05-01T10:02:00.000Z' };
const nonceUsed: CNonceEvent = { type: 'CNonceUsed', data: nonceUse };
const proofUse = { usedAt: '2026-05-01T10:00:00.000Z', htm: 'POST', htu: 'https://issuer.example/oidc4vci/token' };
const proofUsed: DpopProofEvent = { type: 'DpopProofUsed', data: proofUse };
const popUse = { usedAt: '2026-05-01T10:00:00.000Z', clientId: 'wallet-1' };
const popUsed: ClientAttestationPopEvent = { type: 'ClientAttestationPopUsed', data: popUse };

test('given an unused c_nonce, when used, then CNonceUsed; given it used, then AlreadyUsed', (t) => {
  const scenario = givenWhen(cNonce);
  t.deepEqual(scenario([], { type: 'Use', data: nonceUse }), right([nonceUsed]));
  t.deepEqual(scenario([nonceUsed], { type: 'Use', data: nonceUse }), left({ _tag: 'AlreadyUsed' }));
});

test('given an unused DPoP proof, when used, then DpopProofUsed; given it used, then AlreadyUsed', (t) => {
  const scenario = givenWhen(dpopProof);
  t.deepEqual(scenario([], { type: 'Use', data: proofUse }), right([proofUsed]));
  t.deepEqual(scenario([proofUsed], { type: 'Use', data: proofUse }), left({ _tag: 'AlreadyUsed' }));
});

test('given an unused wallet attestation PoP, when used, then ClientAttestationPopUsed; given it used, then AlreadyUsed', (t) => {
  const scenario = givenWhen(clientAttestationPop);
  t.deepEqual(scenario([], { type: 'Use', data: popUse }), right([popUsed]));
  t.deepEqual(scenario([popUsed], { type: 'Use', data: popUse }), left({ _tag: 'AlreadyUsed' }));
});

test('several uses of one c_nonce at once: exactly one is recorded', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'single-use-'));
  const store = await openStore(dir);
  try {
    const stream = cNonceStream('n1');
    const uses = await Promise.all(Array.from({ length: 4 }, () => spendOnce(store, cNonce, stream, nonceUse)));
    t.is(uses.filter(Boolean).length, 1);
    const read = await store.readStream(stream);
    t.is(read._tag === 'Found' ? read.events.length : 0, 1);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
