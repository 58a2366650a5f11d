// A store written by an earlier release (test/fixtures/store-v1, README.md there) still starts and
// serves: its API key authenticates, its resources, their history, the sealed draft values and the
// blob read back, its finished presentation and offer keep their status and their delivered
// callbacks are not sent again, and new presentations and issuances complete on it.
import test from 'ava';
import { chmod, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEK_FILE } from '../src/crypto/kek.js';
import { CONSOLE_API } from '../src/console/routes.js';
import type { StoreFixtureManifest } from './fixtures/store-v1/manifest.js';
import { pidQuery, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { answer } from './support/wallet/presentation.js';
import { IssuanceWallet } from './support/wallet/issuance.js';
import { createOffer, PID_CLAIMS, verifyIssuedCredential, waitForOffer } from './support/wallet/issuanceChecks.js';

// Compiled to dist/test/; the fixture stays in the source tree.
const FIXTURE = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'store-v1');

type Resource = { id: string; revision: number; data: Record<string, unknown>; labels: Record<string, string> };

let h: VerificationHarness;
let manifest: StoreFixtureManifest;
let keyDir: string;

test.before(async () => {
  manifest = JSON.parse(await readFile(join(FIXTURE, 'manifest.json'), 'utf8')) as StoreFixtureManifest;
  // Copies, so the fixture itself is never written to: the service migrates and appends.
  const dataDir = await mkdtemp(join(tmpdir(), 'connector-store-v1-'));
  keyDir = await mkdtemp(join(tmpdir(), 'connector-store-v1-kek-'));
  await cp(join(FIXTURE, 'data'), dataDir, { recursive: true });
  const kekFile = join(keyDir, KEK_FILE);
  await cp(join(FIXTURE, KEK_FILE), kekFile);
  await chmod(kekFile, 0o600);
  h = await startVerificationHarness({ PUBLIC_URL: manifest.publicUrl, DATA_KEY_ENCRYPTION_KEY_FILE: kekFile }, { dataDir });
});

test.after.always(async () => {
  await h?.close();
  if (keyDir) await rm(keyDir, { recursive: true, force: true });
});

const asOldKey = async <T>(path: string): Promise<{ status: number; body: T }> => {
  const response = await h.service.management(path, { key: manifest.apiKey.secret });
  return { status: response.status, body: (await response.json()) as T };
};

test('the API key made before authenticates as itself, in its tenant', async (t) => {
  const tenant = await asOldKey<{ tenant_id: string; api_key: { id: string } }>('/tenant');
  t.is(tenant.status, 200);
  t.is(tenant.body.tenant_id, manifest.tenantId);
  t.is(tenant.body.api_key.id, manifest.apiKey.id);
  t.is((await h.service.management('/tenant', { key: `${manifest.apiKey.secret}x` })).status, 401, 'another secret does not');
});

test('the file and its blob content read back', async (t) => {
  const file = await asOldKey<Resource>(`/files/${manifest.file.id}`);
  t.is(file.status, 200);
  t.like(file.body.data, { filename: 'fixture.txt', filesize: Buffer.byteLength(manifest.file.blobContent) });
  const blob = await h.service.management(`/files/${manifest.file.id}/revisions/1/blob`, { key: manifest.apiKey.secret });
  t.is(blob.status, 200);
  t.is(await blob.text(), manifest.file.blobContent);
});

test('the schema, its history and its public copy read back', async (t) => {
  const schema = await asOldKey<Resource>(`/schemas/${manifest.schema.id}`);
  t.is(schema.status, 200);
  t.is(schema.body.revision, manifest.schema.revision);
  t.deepEqual(schema.body.labels, { fixture: 'store-v1' });
  const history = await asOldKey<{ items: Resource[] }>(`/schemas/${manifest.schema.id}/history`);
  t.is(history.status, 200);
  t.deepEqual(history.body.items.map((r) => r.revision).sort(), [1, 2, 3]);
  const published = await h.service.wallet(`/published-schemas/${manifest.schema.id}`);
  t.is(published.status, 200);
  t.like(await published.json(), { slug: 'fixture-membership', version: '1.0.0', schema: { required: ['name'] } });
});

test('the draft\'s sealed values open with the kept key-encryption key', async (t) => {
  const draft = await asOldKey<Resource>(`/drafts/${manifest.draft.id}`);
  t.is(draft.status, 200);
  t.deepEqual(draft.body.data['values'], { name: { kind: 'STRING', value: 'Erika Mustermann' } });
});

test('the finished presentation and offer keep their status; their delivered callbacks are not sent again', async (t) => {
  const presentations = await asOldKey<{ items: { state: string; status: string }[] }>(`${CONSOLE_API}/presentations`);
  t.is(presentations.status, 200);
  t.like(presentations.body.items.find((p) => p.state === manifest.presentation.state), { status: manifest.presentation.status });
  const offer = await asOldKey<{ status: string }>(`/offers/${manifest.offer.id}`);
  t.is(offer.status, 200);
  t.is(offer.body.status, manifest.offer.status);
  // The fixture's own deliveries: the other tests' new flows deliver beside them meanwhile.
  const deliveries = await asOldKey<{ items: { event_id: string; state: string }[] }>(`${CONSOLE_API}/deliveries?limit=100`);
  const kept = deliveries.body.items.filter((d) => d.event_id === manifest.presentation.state || d.event_id === manifest.offer.id);
  t.true(kept.length >= 2, JSON.stringify(deliveries.body.items));
  t.true(kept.every((d) => d.state === 'delivered'), JSON.stringify(kept));
  t.is(h.service.service.runner.status().quarantine.total, 0, 'every recorded event applies');
  t.deepEqual(h.callbacks(manifest.presentation.state), []);
});

test('a new presentation completes on the old store', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
  const posted = await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } });
  t.is(posted.status, 200);
  t.is((await h.callback(created.state))['status'], 'FULFILLED');
});

test('a new issuance completes on the old store, on the kept issuer chain', async (t) => {
  const offer = await createOffer(h.service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
  const wallet = await IssuanceWallet.create(h.service.config.publicUrl, h.service.service.publicListenUrl);
  const credential = await wallet.receive(offer.credential_offer_uri);
  t.is((await waitForOffer(h.service, offer.offer_id, (b) => b.status === 'ISSUED')).status, 'ISSUED');
  const verified = await verifyIssuedCredential(h.service, credential);
  const kept = await readFile(join(FIXTURE, 'data', 'issuer-identity', 'certificate.pem'), 'utf8');
  t.is(verified.leaf.toString('pem').replace(/\r/g, '').trim(), kept.replace(/\r/g, '').trim());
});
