// Publisher outages as the integrator sees them, through the running service: cached lists keep
// vouching (`staleTrustData.cachedFallback`) within X509_STALENESS_WINDOW and trust fails closed
// after it (`trust_list_unavailable`); a restart during the outage starts from the recorded
// snapshot. Waits are bounded polls for a log line or for the window to have passed, never a
// bet on how fast the machine is.
import test from 'ava';
import { createLogger, type Logger } from '../src/log.js';
import { eventually } from './support/bounded.js';
import { sd, type TestIssuer } from './support/credentials.js';
import { startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { answer } from './support/wallet/presentation.js';
import { startTrustWorld, type TrustWorld } from './support/trustListWorld.js';

const VCT = 'urn:example:diploma:1';

const capture = (): { log: Logger; lines: Record<string, unknown>[] } => {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: createLogger({ level: 'warn', write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) }) };
};

const present = async (h: VerificationHarness, issuer: TestIssuer): Promise<Record<string, unknown>> => {
  const dcql = { credentials: [{ id: 'cred', format: 'dc+sd-jwt', meta: { vct_values: [VCT] }, claims: [{ path: ['given_name'] }] }] };
  const { created, request } = await h.requestAndFetch({ dcql_query: dcql });
  const credential = await issuer.issue({ vct: VCT, claims: { given_name: sd('Erika') }, holder: h.holder });
  await answer(h.endpoints, request, { cred: { credential, holder: h.holder } });
  const callback = await h.callback(created.state);
  return (callback['credentials'] as Record<string, Record<string, unknown>[]>)['cred']![0]!;
};

const lotlEnv = (world: TrustWorld, env: Record<string, string> = {}) => ({
  X509_TRUST_RESOLUTION_MODE: 'lotl',
  X509_TRUST_LIST_SOURCES: world.sources,
  ...env,
});

const rejectedSince = (lines: readonly Record<string, unknown>[], since: number): boolean =>
  lines.some((l) => l['msg'] === 'trust list rejected' && l['url'] !== undefined && Date.parse(l['time'] as string) >= since);

test('publisher down after start: the cached lists keep vouching, flagged cachedFallback', async (t) => {
  const world = await startTrustWorld();
  const { log, lines } = capture();
  const h = await startVerificationHarness(lotlEnv(world, { X509_TRUST_STORE_REFRESH_INTERVAL: '2s' }), { log });
  try {
    t.false('staleTrustData' in (await present(h, world.issuers.qeaa)));
    const downAt = Date.now();
    world.takeDown();
    t.true(await eventually(async () => rejectedSince(lines, downAt), 1200), 'a refresh failed');
    const credential = await present(h, world.issuers.qeaa);
    t.like(credential, { isTrusted: true, trustSource: 'lotl', staleTrustData: { cachedFallback: true, pastNextUpdate: false } });
    t.true(lines.some((l) => l['msg'] === 'trust list rejected' && l['source'] === 'eu-lotl' && l['reason'] === 'answered HTTP 503'));
    const metrics = await (await h.service.management('/metrics')).text();
    t.regex(metrics, /^connector_trust_list_fetches_total\{source="eu-lotl",outcome="accepted"\} [1-9]\d*$/m);
    t.regex(metrics, /^connector_trust_list_fetches_total\{source="eu-lotl",outcome="rejected"\} [1-9]\d*$/m);
  } finally {
    await h.close();
    await world.close();
  }
});

test('past X509_STALENESS_WINDOW without a good fetch, trust fails closed: trust_list_unavailable', async (t) => {
  const world = await startTrustWorld();
  const h = await startVerificationHarness(lotlEnv(world, { X509_STALENESS_WINDOW: '2s', X509_TRUST_STORE_REFRESH_INTERVAL: '1h' }));
  try {
    const downAt = Date.now();
    world.takeDown();
    // Every version in use was fetched before downAt: past downAt + window, all are too old.
    t.true(await eventually(async () => Date.now() > downAt + 2500, 1200), 'the staleness window passed');
    const credential = await present(h, world.issuers.qeaa);
    t.like(credential, { isTrusted: false, trustSource: 'untrusted', trustFailureReason: 'trust_list_unavailable', credentialCategory: 'QEAA' });
    const unknown = await present(h, world.issuers.unknown);
    t.like(unknown, { isTrusted: false, trustFailureReason: 'trust_list_unavailable' });
  } finally {
    await h.close();
    await world.close();
  }
});

test('a restart during a publisher outage starts from the last recorded snapshot (cachedFallback) instead of trusting nothing', async (t) => {
  const world = await startTrustWorld();
  const first = await startVerificationHarness(lotlEnv(world));
  const dataDir = first.service.dataDir;
  await first.service.stop();
  await first.receiver.close();
  world.takeDown();
  const { log, lines } = capture();
  const h = await startVerificationHarness(lotlEnv(world), { dataDir, log });
  try {
    // Every source is on record: the service listens at once and refreshes in the background.
    t.true(await eventually(async () => rejectedSince(lines, 0), 1200), 'the refresh after the restart failed');
    t.like(await present(h, world.issuers.qeaa), { isTrusted: true, trustSource: 'lotl', credentialCategory: 'QEAA', staleTrustData: { cachedFallback: true, pastNextUpdate: false } });
    t.like(await present(h, world.issuers.withdrawn), { isTrusted: false, trustFailureReason: 'issuer_withdrawn' });
  } finally {
    await h.close();
    await world.close();
  }
});

test('a service whose lists were never fetched trusts nothing through them: trust_list_unavailable', async (t) => {
  const world = await startTrustWorld();
  world.takeDown();
  const h = await startVerificationHarness(lotlEnv(world));
  try {
    const credential = await present(h, world.issuers.qeaa);
    t.like(credential, { isTrusted: false, trustFailureReason: 'trust_list_unavailable' });
    t.false('trustDataTimestamp' in credential);
  } finally {
    await h.close();
    await world.close();
  }
});
