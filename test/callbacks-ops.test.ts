// The ops tool for callbacks: configure a tenant's callback, list deliveries with their attempts,
// re-send abandoned ones (same webhook-id) once the receiver is back.
import test from 'ava';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { appendOffer } from './support/callbackSources.js';
import { bootstrapDeliveryId, ended, eventuallyDelivery, withCallbackService } from './support/callbackService.js';
import { opsScript, runScript } from './support/processes.js';
import { hasValidSignature } from './support/receiver.js';

const ops = (dataDir: string, ...args: string[]) => runScript(opsScript, args, { DATA_DIR: dataDir }, { timeoutMs: 60_000 });

test('ops: set a callback, list an abandoned delivery with its attempts, re-send it with the same webhook-id', async (t) => {
  await withCallbackService(async (s, receiver) => {
    const { store } = s.service.context;
    receiver.respond = () => ({ status: 500 });
    const [created] = await appendOffer(store, BOOTSTRAP_TENANT_ID);
    const id = bootstrapDeliveryId(created!.eventId, 'OFFER_CREATED');
    t.is((await eventuallyDelivery(store, id, ended)).status, 'abandoned');

    const refusedUrl = await ops(s.dataDir, 'callbacks', 'set', '--tenant', BOOTSTRAP_TENANT_ID, '--url', 'ftp://example.com/cb');
    t.is(refusedUrl.code, 2);
    t.regex(refusedUrl.stderr, /--url/);
    const refusedSecret = await ops(s.dataDir, 'callbacks', 'set', '--tenant', BOOTSTRAP_TENANT_ID, '--url', receiver.url, '--secret', 'whsec_short');
    t.is(refusedSecret.code, 2);
    const unknownTenant = await ops(s.dataDir, 'callbacks', 'set', '--tenant', 'no-such-tenant', '--url', receiver.url, '--json');
    t.is(unknownTenant.code, 2);
    t.regex(unknownTenant.stderr, /TenantNotFound/);

    // A new secret, generated and shown once; never in the tenant stream in clear.
    const set = await ops(s.dataDir, 'callbacks', 'set', '--tenant', BOOTSTRAP_TENANT_ID, '--url', receiver.url, '--secret', 'whsec_' + Buffer.alloc(32, 7).toString('base64'), '--json');
    t.is(set.code, 0, set.stderr);
    t.like(JSON.parse(set.stdout), { tenant_id: BOOTSTRAP_TENANT_ID, url: receiver.url, changed: true });
    const replay = await ops(s.dataDir, 'streams', 'read', `tenant-${BOOTSTRAP_TENANT_ID}`, '--json');
    t.false(replay.stdout.includes(Buffer.alloc(32, 7).toString('base64')));
    const again = await ops(s.dataDir, 'callbacks', 'set', '--tenant', BOOTSTRAP_TENANT_ID, '--url', receiver.url, '--json');
    t.like(JSON.parse(again.stdout), { changed: false });
    t.false('secret' in (JSON.parse(again.stdout) as object), 'an existing secret is kept, not shown');

    const listed = await ops(s.dataDir, 'deliveries', 'list', '--tenant', BOOTSTRAP_TENANT_ID, '--status', 'abandoned', '--json');
    t.is(listed.code, 0, listed.stderr);
    const lines = listed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { delivery_id: string; state: string; attempt_log: { outcome: string; http_status: number }[] });
    t.is(lines.length, 1);
    t.like(lines[0], { delivery_id: id, state: 'abandoned' });
    t.deepEqual(lines[0]!.attempt_log.map((a) => [a.outcome, a.http_status]), [['http_status', 500], ['http_status', 500], ['http_status', 500]]);
    const table = (await ops(s.dataDir, 'deliveries', 'list', '--status', 'abandoned')).stdout.trimEnd().split('\n');
    t.is(table.length, 2);
    t.regex(table[1]!, new RegExp(`^${id} +${BOOTSTRAP_TENANT_ID} +OFFER_CREATED +abandoned +3 +\\S+ +\\S+$`));
    t.is((await ops(s.dataDir, 'deliveries', 'list', '--status', 'lost')).code, 2);
    t.is((await ops(s.dataDir, 'deliveries', 'list', '--status', 'delivered', '--json')).stdout, '');

    t.is((await ops(s.dataDir, 'deliveries', 'resend')).code, 2);
    receiver.respond = () => ({ status: 200 });
    const resent = await ops(s.dataDir, 'deliveries', 'resend', '--tenant', BOOTSTRAP_TENANT_ID, '--abandoned', '--json');
    t.is(resent.code, 0, resent.stderr);
    t.deepEqual(JSON.parse(resent.stdout), { delivery_id: id, resent: true });
    t.is((await eventuallyDelivery(store, id, (d) => d.status === 'delivered')).status, 'delivered');
    t.is(receiver.received.length, 4);
    const last = receiver.received[3]!;
    t.is(last.headers['webhook-id'], id);
    t.true(hasValidSignature('whsec_' + Buffer.alloc(32, 7).toString('base64'), last), 'signed with the new secret');
    const twice = await ops(s.dataDir, 'deliveries', 'resend', '--delivery', id, '--json');
    t.is(twice.code, 1);
    t.like(JSON.parse(twice.stdout), { resent: false, refused: 'NotAbandoned' });
  });
});
