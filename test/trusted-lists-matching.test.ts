// Which service vouches for a chain, and what it means: status in force at an instant, a source's
// statusMap, a chain through an intermediate, direct trust in a listed leaf.
import test from 'ava';
import { resolveIssuer, type TrustSnapshot } from '../src/trust/matching.js';
import { SnapshotIndex, type ListEntry } from '../src/trust/snapshotIndex.js';
import type { StatusMap } from '../src/config/trust.js';
import type { TrustService } from '../src/trust/trustList.js';
import { createTestIssuer } from './support/credentials.js';
import { SERVICE_TYPES, STATUSES } from './support/trustLists.js';

const DAY = 86_400_000;
const now = new Date();

const snapshotOf = (services: readonly TrustService[], statusMap?: StatusMap): TrustSnapshot => {
  const entry: ListEntry = {
    sourceId: 'test',
    format: 'tl',
    url: 'https://tl.example/de.xml',
    parentUrl: undefined,
    list: { listType: '', territory: 'DE', operator: 'Test', sequenceNumber: 1, issuedAt: new Date(now.getTime() - DAY), nextUpdate: undefined, services, pointers: [] },
    digest: 'digest',
    statusMap,
  };
  return {
    index: new SnapshotIndex([entry]),
    missing: [],
    freshness: () => ({ usable: true, cachedFallback: false, pastNextUpdate: false, fetchedAt: now }),
    lineage: (list) => [list],
  };
};

const service = (overrides: Partial<TrustService>): TrustService => ({
  providerName: 'Provider',
  serviceName: 'Service',
  type: SERVICE_TYPES.qeaa,
  statuses: [{ status: STATUSES.granted, from: new Date(now.getTime() - DAY) }],
  certificates: [],
  country: undefined,
  ...overrides,
});

test('the status in force at the instant decides: a withdrawal that starts tomorrow leaves today granted', async (t) => {
  const issuer = await createTestIssuer();
  const snapshot = snapshotOf([
    service({
      certificates: [issuer.ca.certificate],
      statuses: [
        { status: STATUSES.withdrawn, from: new Date(now.getTime() + DAY) },
        { status: STATUSES.granted, from: new Date(now.getTime() - 10 * DAY) },
      ],
    }),
  ]);
  t.is((await resolveIssuer(snapshot, [issuer.leaf.certificate], now, { isPid: false })).outcome, 'trusted');
  t.is((await resolveIssuer(snapshot, [issuer.leaf.certificate], new Date(now.getTime() + 2 * DAY), { isPid: false })).outcome, 'withdrawn');
  t.is((await resolveIssuer(snapshot, [issuer.leaf.certificate], new Date(now.getTime() - 20 * DAY), { isPid: false })).outcome, 'not_found');
});

test('a status of another scheme means nothing unless the source maps it', async (t) => {
  const issuer = await createTestIssuer();
  const custom = 'http://scheme.example/status/active';
  const services = [service({ certificates: [issuer.ca.certificate], statuses: [{ status: custom, from: undefined }] })];
  t.is((await resolveIssuer(snapshotOf(services), [issuer.leaf.certificate], now, { isPid: false })).outcome, 'not_found');
  t.is((await resolveIssuer(snapshotOf(services, { [custom]: 'trusted' }), [issuer.leaf.certificate], now, { isPid: false })).outcome, 'trusted');
  t.is((await resolveIssuer(snapshotOf(services, { [custom]: 'suspended' }), [issuer.leaf.certificate], now, { isPid: false })).outcome, 'suspended');
});

test('a chain through an intermediate matches the listed root; a listed leaf matches itself (direct trust)', async (t) => {
  const issuer = await createTestIssuer({ intermediate: true });
  const chain = [issuer.leaf.certificate, issuer.intermediate!.certificate];
  const byRoot = await resolveIssuer(snapshotOf([service({ certificates: [issuer.ca.certificate] })]), chain, now, { isPid: false });
  t.like(byRoot, { outcome: 'trusted', category: 'QEAA' });
  t.like(byRoot.match, { index: 1, how: 'issued' });
  const byLeaf = await resolveIssuer(snapshotOf([service({ certificates: [issuer.leaf.certificate] })]), chain, now, { isPid: false });
  t.like(byLeaf.match, { index: 0, how: 'same' });
});

test('a certificate that only carries a listed CA\'s name, not its signature, matches nothing', async (t) => {
  const listed = await createTestIssuer({ rootCa: { commonName: 'Same Name CA' } });
  const impostor = await createTestIssuer({ rootCa: { commonName: 'Same Name CA' } });
  const snapshot = snapshotOf([service({ certificates: [listed.ca.certificate] })]);
  t.is(impostor.leaf.certificate.issuer, listed.ca.certificate.subject);
  t.is((await resolveIssuer(snapshot, [impostor.leaf.certificate], now, { isPid: false })).outcome, 'not_found');
});

test('a PID counts only PID services; an expired service certificate vouches for nothing', async (t) => {
  const issuer = await createTestIssuer();
  t.is((await resolveIssuer(snapshotOf([service({ certificates: [issuer.ca.certificate] })]), [issuer.leaf.certificate], now, { isPid: true })).outcome, 'not_found');
  const lapsed = await createTestIssuer({ rootCa: { notBefore: new Date(now.getTime() - 10 * DAY), notAfter: new Date(now.getTime() - DAY) }, leaf: { notBefore: new Date(now.getTime() - 5 * DAY) } });
  t.is((await resolveIssuer(snapshotOf([service({ certificates: [lapsed.ca.certificate] })]), [lapsed.leaf.certificate], now, { isPid: false })).outcome, 'not_found');
});
