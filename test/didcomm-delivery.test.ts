// DIDComm messages leave the connector: packed as the tenant (authcrypt) for the recipient's
// did:peer:2 and posted to its service endpoint, where an independent DIDComm library unpacks
// them, authenticates the tenant by resolving its did:web as served, and finds every embedded
// resource. Delivery is a callback's: retried with the same message id, abandoned, re-sent.
import test from 'ava';
import { isRight } from 'fp-ts/lib/Either.js';
import { randomUUID } from 'node:crypto';
import { resendDelivery } from '../src/callbacks/resend.js';
import { didcommDeliveryId } from '../src/didcomm/deliveryRequest.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { didcommKeyOwner, didcommStream } from '../streams/didcommMessage.js';
import { deliveryEvents, ended, eventuallyDelivery } from './support/callbackService.js';
import { createAgent, createMediatorKey, unpack, type Agent } from './support/didcommAgent.js';
import { opsScript, runScript } from './support/processes.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { startTestService, withReachablePublicUrl, type TestService } from './support/service.js';

type Resource = { id: string; etag: string; data: Record<string, unknown> };
type Delivery = { status: string; attempts: number; last_attempt_at: string | null; last_error: string | null };

const json = { 'Content-Type': 'application/json' };
const QUICK = { CALLBACK_RETRY_SCHEDULE: '0,100ms,200ms', CALLBACK_TIMEOUT_SECONDS: '2' };

const withDidcommService = async (body: (s: TestService, receiver: Receiver) => Promise<void>, env: Record<string, string> = { EGRESS_ALLOW_PRIVATE_NETWORKS: 'true' }) => {
  const receiver = await startReceiver();
  const s = await withReachablePublicUrl((urls) => startTestService({ env: { ...urls, ...QUICK, ...env } }));
  try {
    await body(s, receiver);
  } finally {
    await s.cleanup();
    await receiver.close();
  }
};

const send = async (s: TestService, to: string, extra: Record<string, unknown> = {}) => {
  const response = await s.management('/didcomm-messages', { method: 'POST', headers: json, body: JSON.stringify({ data: { to, key_id: randomUUID(), ...extra } }) });
  return { status: response.status, body: (await response.json()) as Resource & { errors?: { location: string; message: string }[] } };
};

const fromBlob = async (s: TestService, kind: 'files' | 'credentials', content: string): Promise<Resource> => {
  const requested = (await (await s.management(`/${kind}/upload`, { method: 'POST' })).json()) as { blob_id: string; upload_uri: string };
  const url = new URL(requested.upload_uri);
  await (await s.wallet(`${url.pathname}${url.search}`, { method: 'PUT', headers: json, body: content })).text();
  const created = await s.management(`/${kind}?blob_id=${requested.blob_id}`, { method: 'POST', headers: json, body: '{}' });
  if (created.status !== 201) throw new Error(`create ${kind} ${created.status}`);
  return (await created.json()) as Resource;
};

const credential = JSON.stringify({
  '@context': ['https://www.w3.org/2018/credentials/v1'],
  type: ['VerifiableCredential'],
  issuanceDate: '2026-01-01T00:00:00Z',
  credentialSubject: { name: 'x' },
});

/** The message's `delivery` once it reads `status` (the read models follow the store; polled, bounded). */
const deliveryOf = async (s: TestService, messageId: string, status: string): Promise<Delivery> => {
  const read = async () => ((await (await s.management(`/didcomm-messages/${messageId}`)).json()) as { data: { delivery: Delivery } }).data.delivery;
  let delivery = await read();
  for (let i = 0; i < 200 && delivery.status !== status; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    delivery = await read();
  }
  return delivery;
};

const tenantDid = (s: TestService): string => `did:web:${encodeURIComponent(new URL(s.config.publicUrl).host)}:tenants:${BOOTSTRAP_TENANT_ID}`;

test('a message to a did:peer:2 arrives authcrypted; an independent library authenticates the tenant and finds every resource; it reads delivered', async (t) => {
  await withDidcommService(async (s, receiver) => {
    const agent = createAgent(receiver.url);
    const file = await fromBlob(s, 'files', 'an attachment');
    const vc = await fromBlob(s, 'credentials', credential);
    const sent = await send(s, agent.did, { credentials: [vc.id], files: [file.id] });
    t.is(sent.status, 201);

    const state = await eventuallyDelivery(s.service.store, didcommDeliveryId(BOOTSTRAP_TENANT_ID, sent.body.id), ended);
    t.is(state.status, 'delivered');
    t.is(receiver.received.length, 1);
    const arrival = receiver.received[0]!;
    t.is(arrival.method, 'POST');
    t.is(arrival.headers['content-type'], 'application/didcomm-encrypted+json');

    const { message, metadata } = await unpack(arrival.body, [agent]);
    t.true(metadata.encrypted);
    t.true(metadata.authenticated, 'authcrypt: the sender is authenticated');
    t.is(metadata.encrypted_from_kid, `${tenantDid(s)}#key-agreement-1`, 'by the key-agreement key of the tenant did:web, as served');
    t.deepEqual(metadata.encrypted_to_kids, [agent.kid]);
    t.is(message.id, sent.body.id);
    t.is(message.from, tenantDid(s));
    t.deepEqual(message.to, [agent.did]);
    t.is(message.type, 'https://eudi-connector.invalid/didcomm/resource-transfer/1.0/send');
    t.deepEqual(message.body, {
      credentials: [{ id: vc.id, digest_multibase: vc.data['digest_multibase'] }],
      files: [{ id: file.id, digest_multibase: file.data['digest_multibase'] }],
      presentations: [],
    });
    const attached = new Map((message.attachments ?? []).map((a) => [a.id, (a.data as { json: Resource }).json]));
    t.deepEqual([...attached.keys()].sort(), [vc.id, file.id].sort());
    t.is(attached.get(file.id)!.data['digest_multibase'], file.data['digest_multibase']);
    t.is(attached.get(vc.id)!.id, vc.id);

    const delivery = await deliveryOf(s, sent.body.id, 'delivered');
    t.like(delivery, { status: 'delivered', attempts: 1, last_error: null });
    t.truthy(delivery.last_attempt_at);
    const events = JSON.stringify(await deliveryEvents(s.service.store, didcommDeliveryId(BOOTSTRAP_TENANT_ID, sent.body.id)));
    t.false(events.includes(agent.did), 'the recipient is not in the delivery stream');
    const recorded = await s.service.store.readStream(didcommStream(sent.body.id));
    t.false(JSON.stringify(recorded._tag === 'Found' ? recorded.events.map((e) => e.data) : null).includes(agent.did), 'nor in the message stream');
  });
});

test('an agent that fails twice then recovers gets the message again with the same id, once delivered', async (t) => {
  await withDidcommService(async (s, receiver) => {
    receiver.respond = (_request, count) => (count < 2 ? { status: 500 } : { status: 202 });
    const agent = createAgent(receiver.url);
    const sent = await send(s, agent.did);
    t.is((await eventuallyDelivery(s.service.store, didcommDeliveryId(BOOTSTRAP_TENANT_ID, sent.body.id), ended)).status, 'delivered');
    t.is(receiver.received.length, 3);
    const ids = await Promise.all(receiver.received.map(async (r) => (await unpack(r.body, [agent])).message.id));
    t.deepEqual(ids, [sent.body.id, sent.body.id, sent.body.id]);
    t.like(await deliveryOf(s, sent.body.id, 'delivered'), { status: 'delivered', attempts: 3 });
  });
});

test('an agent that never recovers leads to abandoned; ops lists it and a re-send delivers it', async (t) => {
  await withDidcommService(async (s, receiver) => {
    receiver.respond = () => ({ status: 500 });
    const agent = createAgent(receiver.url);
    const sent = await send(s, agent.did);
    const deliveryId = didcommDeliveryId(BOOTSTRAP_TENANT_ID, sent.body.id);
    t.is((await eventuallyDelivery(s.service.store, deliveryId, ended)).status, 'abandoned');
    t.like(await deliveryOf(s, sent.body.id, 'abandoned'), { status: 'abandoned', attempts: 3, last_error: 'http_status: HTTP 500' });

    const ops = (...args: string[]) => runScript(opsScript, args, { DATA_DIR: s.dataDir }, { timeoutMs: 60_000 });
    const listed = await ops('deliveries', 'list', '--status', 'abandoned', '--json');
    t.is(listed.code, 0, listed.stderr);
    t.like(JSON.parse(listed.stdout.trim()), { delivery_id: deliveryId, status: 'DIDCOMM_MESSAGE', event_id: sent.body.id, state: 'abandoned' });
    t.false(listed.stdout.includes(agent.did), 'ops does not show the recipient');

    receiver.respond = () => ({ status: 200 });
    const resent = await ops('deliveries', 'resend', '--delivery', deliveryId, '--json');
    t.is(resent.code, 0, resent.stderr);
    t.is((await eventuallyDelivery(s.service.store, deliveryId, (d) => d.status === 'delivered')).status, 'delivered');
    t.is(receiver.received.length, 4);
    t.is((await unpack(receiver.received[3]!.body, [agent])).message.id, sent.body.id);
    t.like(await deliveryOf(s, sent.body.id, 'delivered'), { status: 'delivered', attempts: 4, last_error: null });
  });
});

test('through a mediator: the message is wrapped in a forward anoncrypted to the routing key, naming the recipient as next', async (t) => {
  await withDidcommService(async (s, receiver) => {
    const mediator = createMediatorKey();
    const agent = createAgent(receiver.url, [mediator.kid]);
    const sent = await send(s, agent.did);
    t.is((await eventuallyDelivery(s.service.store, didcommDeliveryId(BOOTSTRAP_TENANT_ID, sent.body.id), ended)).status, 'delivered');
    const forward = await unpack(receiver.received[0]!.body, [mediator]);
    t.is(forward.message.type, 'https://didcomm.org/routing/2.0/forward');
    t.false(forward.metadata.authenticated, 'the mediator does not learn the sender');
    t.deepEqual(forward.message.body, { next: agent.did });
    const inner = (forward.message.attachments ?? [])[0]!.data as { json: unknown };
    await t.throwsAsync(unpack(JSON.stringify(inner.json), [mediator]), undefined, 'the mediator cannot open the message');
    const { message, metadata } = await unpack(JSON.stringify(inner.json), [agent]);
    t.is(message.id, sent.body.id);
    t.is(metadata.encrypted_from_kid, `${tenantDid(s)}#key-agreement-1`);
  });
});

test('an unsupported DID method, or a did:peer:2 the connector cannot send to, is a 400 and nothing is recorded or sent', async (t) => {
  await withDidcommService(async (s, receiver) => {
    const didcommEvents = async () => (await s.service.store.readAll()).filter((e) => e.streamId.startsWith('didcomm-')).length;
    const before = await didcommEvents();
    const refused = async (to: string, message: RegExp) => {
      const answer = await send(s, to);
      t.is(answer.status, 400, to.slice(0, 40));
      t.is(answer.body.errors?.[0]?.location, 'body.data.to');
      t.regex(answer.body.errors?.[0]?.message ?? '', message);
    };
    await refused('did:example:bob', /DID method example is not supported/);
    await refused('did:key:z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc', /DID method key is not supported/);
    await refused('did:peer:0z6MkqRYqQiSgvZQdnBytw86Qbs2ZWUkGv22od935YF4s8M7V', /peer \(numalgo 0\)/);
    await refused('not a did', /not a DID/);
    await refused('did:peer:2.Ez6LSnot-base58', /cannot be sent to/);
    const noService = createAgent(receiver.url).did.split('.S')[0]!;
    await refused(noService, /no DIDComm v2 messaging service/);
    const noKey = createAgent(receiver.url).did.replace(/\.E[^.]+/, '');
    await refused(noKey, /no X25519 key-agreement key/);
    const mediators = Array.from({ length: 5 }, () => createMediatorKey().kid);
    await refused(createAgent(receiver.url, mediators).did, /more than 4 routing keys/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.is(receiver.received.length, 0, 'nothing was sent');
    t.is(await didcommEvents(), before, 'nothing was recorded');
  });
});

test('without EGRESS_ALLOW_PRIVATE_NETWORKS, endpoints on private addresses and plain http are refused, at creation or where the name resolves', async (t) => {
  await withDidcommService(async (s, receiver) => {
    const port = new URL(receiver.url).port;
    const refused = async (uri: string, message: RegExp) => {
      const answer = await send(s, createAgent(uri).did);
      t.is(answer.status, 400, uri);
      t.regex(answer.body.errors?.[0]?.message ?? '', message);
    };
    await refused(receiver.url, /scheme http: \(https only\)/);
    await refused(`https://127.0.0.1:${port}/`, /private or reserved address/);
    await refused('https://169.254.169.254/latest', /private or reserved address/);
    await refused('https://[::1]/', /private or reserved address/);
    await refused('https://[::ffff:10.0.0.1]/', /private or reserved address/);

    // A name is checked where the socket connects: localhost resolves to loopback.
    const sent = await send(s, createAgent(`https://localhost:${port}/`).did);
    t.is(sent.status, 201);
    const deliveryId = didcommDeliveryId(BOOTSTRAP_TENANT_ID, sent.body.id);
    t.is((await eventuallyDelivery(s.service.store, deliveryId, ended)).status, 'abandoned');
    const failures = (await deliveryEvents(s.service.store, deliveryId)).filter((e) => e.type === 'DeliveryAttemptFailed');
    t.deepEqual(failures.map((e) => e.type === 'DeliveryAttemptFailed' && e.data.reason), ['endpoint_refused', 'endpoint_refused', 'endpoint_refused']);
    t.like(await deliveryOf(s, sent.body.id, 'abandoned'), { status: 'abandoned', last_error: 'endpoint_refused: the endpoint resolves to a private or reserved address' });
    t.is(receiver.connections(), 0, 'nothing connected to the private address');

    // A did:web whose host is private is not even read.
    const web = await send(s, `did:web:localhost%3A${port}`);
    t.is(web.status, 201);
    t.is((await eventuallyDelivery(s.service.store, didcommDeliveryId(BOOTSTRAP_TENANT_ID, web.body.id), ended)).status, 'abandoned');
    t.like(await deliveryOf(s, web.body.id, 'abandoned'), { last_error: 'unresolvable: did:web document not read: resolves to a private or reserved address' });
    t.is(receiver.received.length, 0, 'nothing reached the private address');
    t.is(receiver.connections(), 0);
  }, { EGRESS_ALLOW_PRIVATE_NETWORKS: 'false' });
});

test('a did:web recipient is resolved over the network: its key agreement and DIDComm service are read from its document', async (t) => {
  await withDidcommService(async (s, receiver) => {
    const agent: Agent = createAgent(receiver.url);
    // The recipient's did:web document, served by the test on loopback (allowed by the switch).
    const host = new URL(receiver.url).host;
    const did = `did:web:${encodeURIComponent(host)}:holder`;
    const webAgent: Agent = { ...agent, did, kid: `${did}#ka` };
    receiver.respond = (request) =>
      request.method === 'GET' && request.path === '/holder/did.json'
        ? {
            status: 200,
            headers: { 'content-type': 'application/did+json' },
            body: JSON.stringify({
              id: did,
              verificationMethod: [{ id: '#ka', type: 'JsonWebKey2020', controller: did, publicKeyJwk: agent.publicKey.export({ format: 'jwk' }) }],
              keyAgreement: ['#ka'],
              service: [{ id: '#didcomm', type: 'DIDCommMessaging', serviceEndpoint: { uri: `${receiver.url}/inbox`, accept: ['didcomm/v2'] } }],
            }),
          }
        : { status: 200 };
    const sent = await send(s, did);
    t.is(sent.status, 201);
    t.is((await eventuallyDelivery(s.service.store, didcommDeliveryId(BOOTSTRAP_TENANT_ID, sent.body.id), ended)).status, 'delivered');
    const posted = receiver.received.filter((r) => r.method === 'POST');
    t.is(posted.length, 1);
    t.is(posted[0]!.path, '/callbacks/inbox');
    const { message } = await unpack(posted[0]!.body, [webAgent]);
    t.is(message.id, sent.body.id);
    t.deepEqual(message.to, [did]);
  });
});

test('a message whose recipient can no longer be opened is not sent: abandoned as data_gone, and a re-send sends nothing', async (t) => {
  await withDidcommService(async (s, receiver) => {
    receiver.respond = () => ({ status: 500 });
    const agent = createAgent(receiver.url);
    const sent = await send(s, agent.did);
    const deliveryId = didcommDeliveryId(BOOTSTRAP_TENANT_ID, sent.body.id);
    t.is((await eventuallyDelivery(s.service.store, deliveryId, ended)).status, 'abandoned');
    const arrived = receiver.received.length;

    await s.service.context.dataKeys.destroy(didcommKeyOwner(sent.body.id));
    t.true(isRight(await resendDelivery(s.service.store, s.service.context.dataKeys, deliveryId, { actor: 'test' })));
    const events = () => deliveryEvents(s.service.store, deliveryId);
    const abandonedAgain = async () => (await events()).filter((e) => e.type === 'DeliveryAbandoned').length === 2;
    for (let i = 0; i < 200 && !(await abandonedAgain()); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    const last = (await events()).at(-1);
    t.like(last, { type: 'DeliveryAbandoned', data: { reason: 'data_gone' } });
    t.is(receiver.received.length, arrived, 'nothing was posted');
  });
});
