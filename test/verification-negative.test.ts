// Presentations that must not pass, end to end: each is posted by the test wallet, ends the
// session as VERIFICATION_FAILED, and reaches the integrator without credentials or responseCode.
import test, { type ExecutionContext } from 'ava';
import { createHolder } from './support/credentials.js';
import { generateP256KeyPair } from '../src/crypto/certificates.js';
import { pidQuery, PID_VCT, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { answer } from './support/wallet/presentation.js';
import type { Holding } from '../wallet/presentation.js';

let h: VerificationHarness;

test.before(async () => {
  h = await startVerificationHarness();
});

test.after.always(async () => {
  await h?.close();
});

interface Case {
  /** What errorDetails must say: the failure is the intended one, not some other. */
  readonly reason: RegExp;
  readonly body?: Record<string, unknown>;
  readonly holdings: () => Promise<Record<string, Holding>>;
}

/** Runs the case in same-device flow with a redirect_uri, so a wrongful redirect would show. */
const failsVerification = async (t: ExecutionContext, c: Case): Promise<void> => {
  const { created, request } = await h.requestAndFetch(
    { dcql_query: pidQuery(), redirect_uri: 'https://rp.example/done', ...c.body },
    'same-device',
  );
  const posted = await answer(h.endpoints, request, await c.holdings());
  t.is(posted.status, 400);
  t.is(posted.body['error'], 'invalid_request');
  t.false('redirect_uri' in posted.body);
  const callback = await h.callback(created.state);
  t.is(callback['status'], 'VERIFICATION_FAILED');
  t.is(callback['state'], created.state);
  t.is(typeof callback['errorDetails'], 'string');
  for (const absent of ['responseCode', 'credentials', 'credentialsRaw']) t.false(absent in callback, absent);
  t.regex(callback['errorDetails'] as string, c.reason);
};

test('a credential whose issuer signature does not verify', async (t) => {
  const forger = await generateP256KeyPair();
  await failsVerification(t, {
    reason: /issuer signature/,
    holdings: async () => ({
      pid: {
        credential: await h.issuer.issue({ vct: PID_VCT, claims: {}, holder: h.holder, signingKey: forger.privateKey }),
        holder: h.holder,
        disclose: [],
      },
    }),
  });
});

test('a key binding with another nonce than the request', async (t) => {
  await failsVerification(t, {
    reason: /nonce/,
    holdings: async () => ({ pid: { credential: await h.pid(), holder: h.holder, keyBinding: { nonce: 'stale-nonce' } } }),
  });
});

test('a key binding for another audience', async (t) => {
  await failsVerification(t, {
    reason: /aud/,
    holdings: async () => ({ pid: { credential: await h.pid(), holder: h.holder, keyBinding: { aud: 'x509_hash:someone-else' } } }),
  });
});

test('a key binding signed by another key than the credential binds', async (t) => {
  const thief = await createHolder();
  await failsVerification(t, {
    reason: /KB-JWT signature/,
    holdings: async () => ({ pid: { credential: await h.pid(), holder: h.holder, keyBinding: { signingKey: thief.keys.privateKey } } }),
  });
});

test('an expired credential', async (t) => {
  await failsVerification(t, {
    reason: /expired/,
    holdings: async () => ({ pid: { credential: await h.pid({ exp: new Date(Date.now() - 60_000) }), holder: h.holder } }),
  });
});

test('a credential of another type than vct_values', async (t) => {
  await failsVerification(t, {
    reason: /vct/,
    holdings: async () => ({ pid: { credential: await h.pid({ vct: 'urn:other:type' }), holder: h.holder } }),
  });
});

test('a presentation missing a requested claim', async (t) => {
  await failsVerification(t, {
    reason: /family_name is not disclosed/,
    holdings: async () => ({ pid: { credential: await h.pid(), holder: h.holder, disclose: ['given_name'] } }),
  });
});

test('a presentation disclosing more than was asked', async (t) => {
  await failsVerification(t, {
    reason: /birthdate .*not requested/,
    holdings: async () => ({ pid: { credential: await h.pid(), holder: h.holder, disclose: ['given_name', 'family_name', 'birthdate'] } }),
  });
});

test('transaction data hashes that do not match what was sent', async (t) => {
  await failsVerification(t, {
    reason: /transaction_data_hashes/,
    body: { transaction_data: [{ type: 'payment', credential_ids: ['pid'], amount: '10.00' }] },
    holdings: async () => ({
      pid: { credential: await h.pid(), holder: h.holder, keyBinding: { transactionDataHashes: ['bm90IHRoZSBoYXNoIG9mIHdoYXQgd2FzIHNlbnQ'] } },
    }),
  });
});

test('transaction data left out of the key binding', async (t) => {
  await failsVerification(t, {
    reason: /transaction_data_hashes/,
    body: { transaction_data: [{ type: 'payment', credential_ids: ['pid'], amount: '10.00' }] },
    holdings: async () => ({ pid: { credential: await h.pid(), holder: h.holder, keyBinding: { transactionData: [] } } }),
  });
});

test('a vp_token without the requested credential', async (t) => {
  await failsVerification(t, {
    reason: /lacks the requested credential\(s\) pid/,
    holdings: async () => ({}),
  });
});

test('a vp_token holding a credential the query did not ask for', async (t) => {
  await failsVerification(t, {
    reason: /did not ask for/,
    holdings: async () => ({ pid: { credential: await h.pid(), holder: h.holder }, extra: { credential: await h.pid(), holder: h.holder } }),
  });
});
