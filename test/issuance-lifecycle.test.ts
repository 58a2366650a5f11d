// The offer's life beyond the happy path: expiry by the scheduler (and what a late wallet gets),
// the timer and a wallet racing for the same offer, state surviving a restart, and the
// credential configurations file checked at start.
import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLeft } from 'fp-ts/lib/Either.js';
import { callbackOf } from '../src/callbacks/callbackOf.js';
import { loadStream } from '../src/eventstore/handle.js';
import type { RecordedEvent } from '../src/eventstore/port.js';
import { loadCredentialConfigurations, parseCredentialConfigurations } from '../src/issuance/configurations.js';
import { preAuthorizedCode } from '../src/issuance/codes.js';
import { expireOffer } from '../src/issuance/offerEnd.js';
import { issuanceSecrets } from '../src/issuance/secrets.js';
import { offer, offerStream } from '../streams/offer.js';
import { mainScript, runScript } from './support/processes.js';
import { startTestService } from './support/service.js';

/** The body of the callback a recorded offer event translates to. */
const callbackBody = (recorded: RecordedEvent | undefined): unknown => {
  const callback = recorded && callbackOf(recorded);
  return callback && !isLeft(callback) ? callback.right?.body : undefined;
};
import { IssuanceWallet } from './support/wallet/issuance.js';
import { PRE_AUTHORIZED } from '../wallet/issuance.js';
import { createOffer, PID_CLAIMS, verifyIssuedCredential, waitForOffer } from './support/wallet/issuanceChecks.js';

test('an offer past OFFER_TTL_SECONDS expires: EXPIRED callback, claims purged, a late wallet refused', async (t) => {
  const service = await startTestService({ env: { OFFER_TTL_SECONDS: '1', OFFER_EXPIRY_INTERVAL_MS: '50' } });
  try {
    const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
    const w = await IssuanceWallet.create(service.config.publicUrl, service.service.publicListenUrl);
    // The code the offer carries, made as the issuer makes it: resolving the offer to read it would
    // race the one-second lifetime, which a busy machine loses before the wallet gets there.
    const code = preAuthorizedCode(issuanceSecrets(service.service.context.kek), created.offer_id);
    const status = await waitForOffer(service, created.offer_id, (b) => b.status === 'EXPIRED' && b.claims_purged);
    t.is(status.error_details, undefined);
    const late = await w.token(code);
    t.is(late.status, 400);
    t.is(late.body['error'], 'invalid_grant');
    t.is((await w.resolveOffer(created.credential_offer_uri)).status, 404);
    const read = await service.service.store.readStream(offerStream(created.offer_id));
    if (read._tag !== 'Found') return t.fail('offer stream missing');
    t.deepEqual(read.events.map((e) => e.type), ['OfferCreated', 'OfferExpired', 'ClaimsPurged']);
    t.deepEqual(callbackBody(read.events[1]), {
      eventId: created.offer_id,
      status: 'EXPIRED',
      offerId: created.offer_id,
    });
    t.is(await service.service.context.dataKeys.find(created.offer_id), undefined);
  } finally {
    await service.cleanup();
  }
});

test('a wallet holding a token gets invalid_token once the offer expired, and no credential', async (t) => {
  const service = await startTestService();
  try {
    const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
    const w = await IssuanceWallet.create(service.config.publicUrl, service.service.publicListenUrl);
    const code = (await w.resolveOffer(created.credential_offer_uri)).body.grants[PRE_AUTHORIZED]['pre-authorized_code'];
    const token = await w.token(code);
    t.is(token.status, 200);
    // The expiry command with a clock past the TTL: no race with the wall clock on a busy machine.
    const pastTtl = { store: service.service.store, dataKeys: service.service.context.dataKeys, now: () => new Date(Date.now() + 86_400_000) };
    t.true(await expireOffer(pastTtl, created.offer_id));
    await waitForOffer(service, created.offer_id, (b) => b.status === 'EXPIRED');
    const response = await w.credential(String(token.body['access_token']), {
      credential_configuration_id: 'pid',
      proofs: { jwt: [await w.keyProof({ nonce: await w.nonce() })] },
    });
    t.is(response.status, 401);
    t.is(response.body['error'], 'invalid_token');
  } finally {
    await service.cleanup();
  }
});

test('a credential that cannot be made fails the offer: server_error to the wallet, FAILED with errorDetails', async (t) => {
  const service = await startTestService();
  try {
    const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
    const w = await IssuanceWallet.create(service.config.publicUrl, service.service.publicListenUrl);
    const token = await w.token((await w.resolveOffer(created.credential_offer_uri)).body.grants[PRE_AUTHORIZED]['pre-authorized_code']);
    // The claims' key lost (as after an operator's mistake): the connector cannot make the credential.
    await service.service.context.dataKeys.destroy(created.offer_id);
    const response = await w.credential(String(token.body['access_token']), {
      credential_configuration_id: 'pid',
      proofs: { jwt: [await w.keyProof({ nonce: await w.nonce() })] },
    });
    t.is(response.status, 500);
    t.is(response.body['error'], 'server_error');
    const status = await waitForOffer(service, created.offer_id, (b) => b.status === 'FAILED' && b.claims_purged);
    t.is(status.error_details, 'claims unavailable');
    const read = await service.service.store.readStream(offerStream(created.offer_id));
    if (read._tag !== 'Found') return t.fail();
    const failed = read.events.find((e) => e.type === 'OfferFailed');
    t.deepEqual(callbackBody(failed), {
      eventId: created.offer_id,
      status: 'FAILED',
      offerId: created.offer_id,
      errorDetails: 'claims unavailable',
    });
  } finally {
    await service.cleanup();
  }
});

test('the expiry command does nothing to an offer that is not yet due or already ended', async (t) => {
  const service = await startTestService();
  try {
    const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
    const ctx = { store: service.service.store, dataKeys: service.service.context.dataKeys, now: () => new Date() };
    t.false(await expireOffer(ctx, created.offer_id));
    const w = await IssuanceWallet.create(service.config.publicUrl, service.service.publicListenUrl);
    await w.receive(created.credential_offer_uri);
    const muchLater = { ...ctx, now: () => new Date(Date.now() + 86_400_000) };
    t.false(await expireOffer(muchLater, created.offer_id));
    const loaded = await loadStream(service.service.store, offer, offerStream(created.offer_id));
    if (isLeft(loaded)) return t.fail();
    t.is(loaded.right.state.status, 'ISSUED');
  } finally {
    await service.cleanup();
  }
});

test('of several wallets redeeming one code at once, exactly one gets a token', async (t) => {
  const service = await startTestService();
  try {
    const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
    const wallets = await Promise.all(Array.from({ length: 5 }, () => IssuanceWallet.create(service.config.publicUrl, service.service.publicListenUrl)));
    const code = (await wallets[0]!.resolveOffer(created.credential_offer_uri)).body.grants[PRE_AUTHORIZED]['pre-authorized_code'];
    const answers = await Promise.all(wallets.map((w) => w.token(code)));
    t.is(answers.filter((a) => a.status === 200).length, 1);
    t.true(answers.filter((a) => a.status !== 200).every((a) => a.status === 400 && a.body['error'] === 'invalid_grant'));
  } finally {
    await service.cleanup();
  }
});

test('the expiry timer and a wallet racing for one offer: exactly one wins, and a credential only with ISSUED', async (t) => {
  const service = await startTestService();
  try {
    const ctx = { store: service.service.store, dataKeys: service.service.context.dataKeys, now: () => new Date(Date.now() + 86_400_000) };
    for (let round = 0; round < 6; round++) {
      const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
      const w = await IssuanceWallet.create(service.config.publicUrl, service.service.publicListenUrl);
      const token = await w.token((await w.resolveOffer(created.credential_offer_uri)).body.grants[PRE_AUTHORIZED]['pre-authorized_code']);
      const request = { credential_configuration_id: 'pid', proofs: { jwt: [await w.keyProof({ nonce: await w.nonce() })] } };
      const [response, expired] = await Promise.all([w.credential(String(token.body['access_token']), request), expireOffer(ctx, created.offer_id)]);
      const read = await service.service.store.readStream(offerStream(created.offer_id));
      if (read._tag !== 'Found') return t.fail();
      const endings = read.events.map((e) => e.type).filter((type) => type === 'CredentialIssued' || type === 'OfferExpired');
      t.is(endings.length, 1);
      if (response.status === 200) {
        t.deepEqual(endings, ['CredentialIssued']);
        t.false(expired);
      } else {
        t.deepEqual(endings, ['OfferExpired']);
        t.is(response.body['error'], 'invalid_token');
      }
    }
  } finally {
    await service.cleanup();
  }
});

test('a token issued before a restart is honoured after it: codes, nonces and tokens live in the store', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'issuance-restart-'));
  const first = await startTestService({ dataDir });
  let second: Awaited<ReturnType<typeof startTestService>> | undefined;
  try {
    const created = await createOffer(first, { credential_configuration_id: 'membership', claims: { member_number: '9', given_name: 'A', family_name: 'B' } });
    let w = await IssuanceWallet.create(first.config.publicUrl, first.service.publicListenUrl);
    const code = (await w.resolveOffer(created.credential_offer_uri)).body.grants[PRE_AUTHORIZED]['pre-authorized_code'];
    const token = await w.token(code);
    const nonce = await w.nonce();
    await first.stop();
    second = await startTestService({ dataDir });
    w = w.at(second.service.publicListenUrl);
    t.is((await w.token(code)).body['error'], 'invalid_grant');
    const response = await w.credential(String(token.body['access_token']), {
      credential_configuration_id: 'membership',
      proofs: { jwt: [await w.keyProof({ nonce })] },
    });
    t.is(response.status, 200);
    const [issued] = response.body['credentials'] as { credential: string }[];
    t.is((await verifyIssuedCredential(second, issued!.credential)).payload['member_number'], '9');
  } finally {
    await first.stop();
    await second?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('a bad credential configurations file stops the start with a message naming the entry', async (t) => {
  t.throws(
    () =>
      parseCredentialConfigurations(
        {
          credential_configurations: [
            { id: 'good', vct: 'urn:x:good', display: [{ lang: 'en', name: 'Good' }], claims: [{ path: ['a'], mandatory: true, sd: 'always', display: [] }] },
            { id: 'bad', vct: 'urn:x:bad', display: [{ lang: 'en', name: 'Bad' }], claims: [{ path: ['a'], mandatory: true, sd: 'sometimes', display: [] }] },
          ],
        },
        'test',
      ),
    { message: /entry "bad" \(credential_configurations\[1\]\): claims\[0\]\.sd/ },
  );
  t.throws(
    () =>
      parseCredentialConfigurations(
        { credential_configurations: [{ id: 'x', vct: 'urn:x', display: [{ lang: 'en', name: 'X' }], claims: [{ path: ['iss'], mandatory: false, sd: 'never', display: [] }] }] },
        'test',
      ),
    { message: /entry "x".*"iss" is set by the connector/ },
  );
  const dir = await mkdtemp(join(tmpdir(), 'configurations-'));
  try {
    const file = join(dir, 'configurations.json');
    await writeFile(file, JSON.stringify({ credential_configurations: [{ id: 'only', vct: 'nope', display: [], claims: [] }] }));
    await t.throwsAsync(loadCredentialConfigurations(file), { message: /CREDENTIAL_CONFIGURATIONS .*entry "only"/ });
    // The process itself: it must not start, and must say which entry is wrong.
    const run = await runScript(mainScript, [], { DATA_DIR: dir, MANAGEMENT_PORT: '0', PUBLIC_PORT: '0', PUBLIC_HOST: '127.0.0.1', CREDENTIAL_CONFIGURATIONS: file });
    t.is(run.code, 1);
    t.regex(run.stdout + run.stderr, /entry \\"only\\"/);
    const good = join(dir, 'good.json');
    await writeFile(
      good,
      JSON.stringify({
        credential_configurations: [
          { id: 'badge', vct: 'https://example.org/badge', display: [{ lang: 'en', name: 'Badge' }], claims: [{ path: ['level'], mandatory: true, sd: 'never', value_type: 'integer', display: [{ lang: 'en', name: 'Level' }] }] },
        ],
      }),
    );
    const service = await startTestService({ env: { CREDENTIAL_CONFIGURATIONS: good } });
    try {
      const created = await createOffer(service, { credential_configuration_id: 'badge', claims: { level: 3 } });
      const w = await IssuanceWallet.create(service.config.publicUrl, service.service.publicListenUrl);
      const verified = await verifyIssuedCredential(service, await w.receive(created.credential_offer_uri));
      t.is(verified.payload['vct'], 'https://example.org/badge');
      t.is(verified.payload['level'], 3);
      await waitForOffer(service, created.offer_id, (b) => b.status === 'ISSUED');
    } finally {
      await service.cleanup();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
