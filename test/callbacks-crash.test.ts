// SIGKILL of the service between a terminal event and its delivery: after a restart the
// callback still arrives, once, and nothing delivered before the crash is delivered again.
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataKeys } from '../src/crypto/dataKeys.js';
import { fileKek, loadKek } from '../src/crypto/kek.js';
import { silentLogger } from '../src/log.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { appendOffer, appendPresentationOutcome } from './support/callbackSources.js';
import { bootstrapDeliveryId, ended, eventuallyDelivery, quickCallbackEnv } from './support/callbackService.js';
import { TEST_KEK_FILE } from './support/kek.js';
import { startMain, type RunningService } from './support/processes.js';
import { openStore } from './support/readmodels.js';
import { hasValidSignature, startReceiver, TEST_WEBHOOK_SECRET } from './support/receiver.js';
import { BOOTSTRAP_KEY } from './support/service.js';

test('SIGKILL between the terminal event and the delivery: after restart the callback arrives once', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'callbacks-crash-'));
  const receiver = await startReceiver();
  const env = {
    DATA_DIR: dir, MANAGEMENT_PORT: '0', PUBLIC_PORT: '0', PUBLIC_HOST: '127.0.0.1', BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
    ...quickCallbackEnv(receiver),
  };
  let running: RunningService | undefined;
  const store = await (async () => {
    running = await startMain(env);
    return openStore(dir);
  })();
  try {
    const keys = dataKeys(store, fileKek(await loadKek({ dataDir: dir, dataKeyEncryptionKey: undefined, dataKeyEncryptionKeyFile: TEST_KEK_FILE }, silentLogger)));
    const [before] = await appendOffer(store, BOOTSTRAP_TENANT_ID);
    const beforeId = bootstrapDeliveryId(before!.eventId, 'OFFER_CREATED');
    t.is((await eventuallyDelivery(store, beforeId, ended)).status, 'delivered');

    // Frozen, the service cannot see the next events; killed, it never will in this life.
    running!.child.kill('SIGSTOP');
    const fulfilled = await appendPresentationOutcome(store, keys, BOOTSTRAP_TENANT_ID, 'FULFILLED');
    const [created] = await appendOffer(store, BOOTSTRAP_TENANT_ID);
    running!.child.kill('SIGKILL');
    await running!.exited;
    t.is(receiver.received.length, 1);

    running = await startMain(env);
    const ids = [bootstrapDeliveryId(fulfilled.eventId, 'FULFILLED'), bootstrapDeliveryId(created!.eventId, 'OFFER_CREATED')];
    for (const id of ids) t.is((await eventuallyDelivery(store, id, (d) => ended(d) && (!d.callback.sealed || d.dataDestroyed))).status, 'delivered');
    for (const id of [beforeId, ...ids]) t.is(receiver.received.filter((r) => r.headers['webhook-id'] === id).length, 1);
    t.is(receiver.received.length, 3);
    t.true(receiver.received.every((r) => hasValidSignature(TEST_WEBHOOK_SECRET, r)));
    const body = receiver.received.find((r) => r.headers['webhook-id'] === ids[0])!.body;
    t.deepEqual(JSON.parse(body), fulfilled.expectedBody);
    t.is(await keys.find(fulfilled.eventId), undefined);
  } finally {
    running?.child.kill('SIGKILL');
    await running?.exited;
    await store.close();
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  }
});
