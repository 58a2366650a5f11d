// WORKERS=2: the service as a primary and two worker processes sharing both listeners over one
// embedded store. Flows end to end with their callbacks, read-your-writes across workers, a
// killed worker restarted, and SIGTERM stopping every process.
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './support/bounded.js';
import { bootstrapDeliveryId, deliveryState, ended, eventuallyDelivery, quickCallbackEnv } from './support/callbackService.js';
import { createHolder, createTestIssuer, sd } from './support/credentials.js';
import { startMain, type RunningService } from './support/processes.js';
import { openStore } from './support/readmodels.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { BOOTSTRAP_KEY } from './support/service.js';
import { PID_VCT, pidQuery } from './support/wallet/connector.js';
import { IssuanceWallet } from './support/wallet/issuance.js';
import { PID_CLAIMS } from './support/wallet/issuanceChecks.js';
import { answer, fetchAuthorizationRequest } from './support/wallet/presentation.js';

interface Line {
  readonly msg: string;
  readonly worker?: number;
  readonly pid?: number;
  readonly method?: string;
  readonly route?: string;
}

const logged = (service: RunningService): Line[] =>
  service.lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Line);

const workerPids = (service: RunningService): number[] => logged(service).flatMap((l) => (l.msg === 'worker started' ? [l.pid!] : []));

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const withWorkers = async (body: (service: RunningService, receiver: Receiver, dataDir: string) => Promise<void>): Promise<void> => {
  const dataDir = await mkdtemp(join(tmpdir(), 'workers-'));
  const receiver = await startReceiver();
  const service = await startMain({
    WORKERS: '2',
    DATA_DIR: dataDir,
    MANAGEMENT_PORT: '0',
    PUBLIC_PORT: '0',
    PUBLIC_HOST: '127.0.0.1',
    BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
    ...quickCallbackEnv(receiver),
  });
  service.exited.catch(() => undefined);
  try {
    await body(service, receiver, dataDir);
  } finally {
    if (service.child.exitCode === null) {
      service.child.kill('SIGKILL');
      await service.exited.catch(() => undefined);
    }
    for (const pid of workerPids(service)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }
};

/** One request on a connection of its own: the primary hands each new connection to the next worker. */
const onNewConnection = (url: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; json: Record<string, unknown> }> =>
  new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${BOOTSTRAP_KEY}` };
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const sent = request(url, { method: init.method ?? 'GET', headers, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) }));
    });
    sent.on('error', reject);
    sent.end(init.body === undefined ? undefined : JSON.stringify(init.body));
  });

const management = (service: RunningService, path: string, init: RequestInit = {}): Promise<Response> =>
  fetch(`${service.managementUrl}${path}`, { ...init, headers: { Authorization: `Bearer ${BOOTSTRAP_KEY}`, 'Content-Type': 'application/json' } });

// Delivery is at least once: an attempt the receiver answered too late for the sender (a one-second
// timeout here, easily missed on a loaded machine) is recorded as failed and the same request is
// sent again under the same webhook-id, for the receiver to deduplicate. "Once" is therefore what
// the store says: each callback recorded once and delivered once, every arrival of its id one of
// the attempts recorded for it, with the same body; and no id arrives that no flow asked for.
test('with WORKERS=2, verification and issuance flows complete end to end and each callback is delivered exactly once', async (t) => {
  await withWorkers(async (service, receiver, dataDir) => {
    const endpoints = { publicUrl: 'http://localhost:8080', listenUrl: service.publicUrl };
    const issuer = await createTestIssuer();
    const holder = await createHolder();
    const credential = await issuer.issue({ vct: PID_VCT, claims: { given_name: sd('Erika'), family_name: sd('Mustermann') }, holder });
    const verification = async (): Promise<string> => {
      const created = await management(service, '/oidc4vp', { method: 'POST', body: JSON.stringify({ dcql_query: pidQuery() }) });
      t.is(created.status, 201);
      const { state, cross_device_request_uri: uri } = (await created.json()) as { state: string; cross_device_request_uri: string };
      const posted = await answer(endpoints, await fetchAuthorizationRequest(endpoints, uri), { pid: { credential, holder } });
      t.is(posted.status, 200);
      return state;
    };
    const issuance = async (): Promise<string> => {
      const created = await management(service, '/offers', { method: 'POST', body: JSON.stringify({ credential_configuration_id: 'pid', claims: PID_CLAIMS }) });
      t.is(created.status, 201);
      const { offer_id: offerId, credential_offer_uri: uri } = (await created.json()) as { offer_id: string; credential_offer_uri: string };
      const wallet = await IssuanceWallet.create(endpoints.publicUrl, service.publicUrl);
      t.truthy(await wallet.receive(uri));
      return offerId;
    };
    const states = await Promise.all(Array.from({ length: 6 }, verification));
    const offers = await Promise.all(Array.from({ length: 6 }, issuance));
    const expected = [
      ...states.map((state) => bootstrapDeliveryId(state, 'FULFILLED')),
      ...offers.flatMap((offer) => [bootstrapDeliveryId(offer, 'OFFER_CREATED'), bootstrapDeliveryId(offer, 'ISSUED')]),
    ];
    const ids = () => receiver.received.map((r) => r.headers['webhook-id'] as string);
    t.true(await receiver.until(() => expected.every((id) => ids().includes(id))), 'every callback arrives');
    const store = await openStore(dataDir);
    try {
      // Each delivery ended (no retry still due), then, stopped, the service can send nothing more.
      for (const id of expected) t.is((await eventuallyDelivery(store, id, ended)).status, 'delivered', id);
      service.child.kill('SIGTERM');
      t.is(await service.exited, 0);

      t.deepEqual([...new Set(ids())].sort(), [...expected].sort(), 'no callback arrives that no flow asked for');
      for (const id of expected) {
        const arrivals = receiver.received.filter((r) => r.headers['webhook-id'] === id);
        const recorded = await deliveryState(store, id);
        const attempts = recorded.status === 'delivered' ? recorded.attempts : 0;
        t.true(arrivals.length <= attempts, `${id}: ${arrivals.length} arrivals, ${attempts} attempts recorded`);
        t.is(new Set(arrivals.map((r) => r.body)).size, 1, `${id}: a retry sends the same request`);
      }
    } finally {
      await store.close();
    }
  });
});

test('with WORKERS=2, a write answered by one worker is read on the next connection, served by the other worker', async (t) => {
  await withWorkers(async (service) => {
    const rounds = 20;
    for (let i = 0; i < rounds; i++) {
      const created = await onNewConnection(`${service.managementUrl}/offers`, { method: 'POST', body: { credential_configuration_id: 'pid', claims: PID_CLAIMS } });
      t.is(created.status, 201);
      const read = await onNewConnection(`${service.managementUrl}/offers/${created.json['offer_id'] as string}`);
      t.is(read.status, 200, `round ${i}: the offer created just before is found`);
    }
    // Each worker logs the requests it served: the reads did land on the other worker.
    const served = logged(service).filter((l) => l.msg === 'request' && (l.route === '/offers' || l.route === '/offers/:offer_id'));
    t.is(served.length, 2 * rounds);
    const crossed = Array.from({ length: rounds }, (_, i) => served[2 * i]!.worker !== served[2 * i + 1]!.worker).filter(Boolean).length;
    t.true(crossed >= rounds / 2, `${crossed} of ${rounds} reads were served by the other worker`);

    // Whichever worker a scrape reaches, it counts the requests both served.
    const created = /^connector_http_requests_total\{(?=[^}]*method="POST")(?=[^}]*route="\/offers")(?=[^}]*status="201")[^}]*\} (\d+)$/m;
    for (let i = 0; i < 2; i++) {
      const scraped = await new Promise<string>((resolve, reject) => {
        request(`${service.managementUrl}/metrics`, { agent: false }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve(text));
        }).on('error', reject).end();
      });
      t.is(scraped.match(created)?.[1], String(rounds), `scrape ${i}`);
    }
  });
});

test('with WORKERS=2, a killed worker is restarted while the other keeps answering, and SIGTERM stops every process', async (t) => {
  await withWorkers(async (service) => {
    const [first, second] = workerPids(service);
    process.kill(first!, 'SIGKILL');
    t.true(await eventually(async () => logged(service).some((l) => l.msg === 'worker exited, restarting it' && l.pid === first)));
    // The other worker answers meanwhile.
    for (let i = 0; i < 6; i++) t.is((await onNewConnection(`${service.managementUrl}/tenant`)).status, 200);
    const restarted = () => workerPids(service).find((pid) => pid !== first && pid !== second);
    t.true(await eventually(async () => logged(service).some((l) => l.msg === 'worker listening' && l.pid !== undefined && l.pid === restarted()), 1200));

    // With the other original worker gone too, the restarted one alone answers.
    process.kill(second!, 'SIGKILL');
    t.true(await eventually(async () => logged(service).some((l) => l.msg === 'worker exited, restarting it' && l.pid === second)));
    for (let i = 0; i < 6; i++) t.is((await onNewConnection(`${service.managementUrl}/tenant`)).status, 200);

    service.child.kill('SIGTERM');
    t.is(await service.exited, 0);
    const pids = workerPids(service);
    t.true(pids.length >= 3);
    t.deepEqual(pids.filter(isRunning), [], 'no worker outlives the primary');
  });
});
