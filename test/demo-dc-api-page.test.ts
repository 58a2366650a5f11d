// The demo's Digital Credentials API page (demo/dc-api/, demo/dcApiPage.ts) without a browser:
// the page is served, its script runs in a VM context whose `navigator.credentials.get` is the
// wallet simulator (wallet/dcApi.ts) answering as browser and wallet, and a stand-in management
// API on loopback records what the page's backend route pair sends it. No real browser: Chromium
// has no wallet to answer.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { runInNewContext } from 'node:vm';
import test from 'ava';
import { compactDecrypt, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { startDcApiPage, type DcApiPage } from '../demo/dcApiPage.js';
import { answerDcApiRequest } from '../wallet/dcApi.js';
import { newWalletKey, type WalletKey } from '../wallet/keys.js';
import type { StoredCredential } from '../wallet/store.js';
import { createTestIssuer, sd } from './support/credentials.js';

const ORIGIN = 'https://shop.example';
const API_KEY = 'demo-api-key';
const PID_VCT = 'urn:eudi:pid:1';
const QUERY = { credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [PID_VCT] }, claims: [{ path: ['given_name'] }] }] };

interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: unknown;
}

/** A stand-in management API: records each call and answers with `answers[path]`. */
const startManagement = async (answers: Record<string, { status: number; body: unknown }>) => {
  const calls: Recorded[] = [];
  const server: Server = createServer((request: IncomingMessage, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const path = request.url ?? '';
      calls.push({ method: request.method ?? '', path, authorization: request.headers.authorization, body: JSON.parse(text) as unknown });
      const answer = answers[path] ?? { status: 404, body: { type: 'about:blank', title: 'Not Found', status: 404 } };
      response.writeHead(answer.status, { 'Content-Type': answer.status < 300 ? 'application/json' : 'application/problem+json' }).end(JSON.stringify(answer.body));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

let holderKey: WalletKey;
let credentials: StoredCredential[];
let encryption: { publicJwk: JWK; privateKey: CryptoKey };

test.before(async () => {
  holderKey = await newWalletKey();
  const issuer = await createTestIssuer();
  const pid = await issuer.issue({ vct: PID_VCT, claims: { given_name: sd('Erika') }, holder: { keys: { privateKey: holderKey.privateKey, publicKey: holderKey.privateKey }, publicJwk: holderKey.publicJwk } });
  credentials = [{ credential: `${pid.jwt}~${Object.values(pid.disclosures).join('~')}~`, issuer: 'https://issuer.example', vct: PID_VCT, received_at: new Date().toISOString() }];
  const { publicKey, privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256' });
  encryption = { publicJwk: { ...(await exportJWK(publicKey)), use: 'enc', alg: 'ECDH-ES' }, privateKey };
});

/** An unsigned dc_api_request as the connector would create it (the wallet needs no certificate for it). */
const dcApiRequest = (nonce: string) => ({
  protocol: 'openid4vp-v1-unsigned',
  data: { response_type: 'vp_token', response_mode: 'dc_api.jwt', nonce, dcql_query: QUERY, client_metadata: { jwks: { keys: [encryption.publicJwk] } } },
});

/** A DOM element as far as page.js uses it; `changed` resolves on each textContent write. */
class Element {
  hidden = true;
  readonly texts: string[] = [];
  private handler: (() => void) | undefined;
  private waiting: ((text: string) => void)[] = [];
  set textContent(text: string) {
    this.texts.push(text);
    for (const resolve of this.waiting.splice(0)) resolve(text);
  }
  get textContent(): string {
    return this.texts.at(-1) ?? '';
  }
  addEventListener(_type: string, handler: () => void) {
    this.handler = handler;
  }
  click() {
    this.handler?.();
  }
  /** Resolves once the text is one `done` accepts. */
  async until(done: (text: string) => boolean): Promise<string> {
    while (!done(this.textContent)) await new Promise<string>((resolve) => this.waiting.push(resolve));
    return this.textContent;
  }
}

/** Runs the served page.js in a fresh context, the wallet simulator behind navigator.credentials.get. */
const runPageScript = async (page: DcApiPage, options: { withApi?: boolean } = {}) => {
  const elements = { '#verify': new Element(), '#status': new Element(), '#result': new Element() };
  const asked: unknown[] = [];
  const script = await (await fetch(new URL('/dc-api.js', page.url))).text();
  const navigator = {
    credentials: {
      get: async (request: { digital: { requests: unknown[] } }) => {
        asked.push(request);
        const { protocol, data } = await answerDcApiRequest(request.digital.requests, { origin: ORIGIN, holderKey, credentials });
        return { protocol, data };
      },
    },
  };
  runInNewContext(script, {
    document: { querySelector: (selector: keyof typeof elements) => elements[selector] },
    fetch: (path: string, init: RequestInit) => fetch(new URL(path, page.url), init),
    location: { origin: ORIGIN },
    navigator,
    ...(options.withApi === false ? {} : { DigitalCredential: class {} }),
    JSON,
  });
  return { elements, asked };
};

test("the page's script creates the session through its backend, hands dc_api_request to navigator.credentials.get and forwards {origin, protocol, data}", async (t) => {
  const request = dcApiRequest('nonce-page-1');
  const management = await startManagement({
    '/oidc4vp': { status: 201, body: { state: 'state-1', expires_at: '2030-01-01T00:00:00Z', dc_api_request: request } },
    '/oidc4vp/state-1/dc-api-response': { status: 200, body: { state: 'state-1', status: 'FULFILLED' } },
  });
  const page = await startDcApiPage({ dcqlQuery: QUERY, origin: ORIGIN });
  t.teardown(async () => Promise.all([page.close(), management.close()]));
  page.connect(management.url, API_KEY);
  const html = await (await fetch(page.url)).text();
  t.true(html.includes('<script src="/dc-api.js"></script>'));
  t.notRegex(html, /(src|href)=["']?(https?:)?\/\//, 'nothing loaded from elsewhere');

  const { elements, asked } = await runPageScript(page);
  elements['#verify'].click();
  t.is(await elements['#status'].until((text) => text === 'Verified.' || text.startsWith('Failed')), 'Verified.');

  const [create, forward] = management.calls;
  t.is(management.calls.length, 2);
  t.deepEqual(create, { method: 'POST', path: '/oidc4vp', authorization: `Bearer ${API_KEY}`, body: { flow_type: 'dc_api', expected_origins: [ORIGIN], dcql_query: QUERY } });
  t.deepEqual(asked, [{ digital: { requests: [request] } }], 'the dc_api_request as the connector made it, in digital.requests');
  t.like(forward, { method: 'POST', path: '/oidc4vp/state-1/dc-api-response', authorization: `Bearer ${API_KEY}` });
  const body = forward?.body as { origin: string; protocol: string; data: { response: string } };
  t.deepEqual(Object.keys(body), ['origin', 'data', 'protocol']);
  t.is(body.origin, ORIGIN);
  t.is(body.protocol, 'openid4vp-v1-unsigned');
  const { plaintext } = await compactDecrypt(body.data.response, encryption.privateKey);
  t.truthy((JSON.parse(new TextDecoder().decode(plaintext)) as { vp_token: Record<string, string[]> }).vp_token['pid'], "the wallet's answer, untouched");
  t.is(JSON.parse(elements['#result'].textContent).status, 'FULFILLED');
  t.false(elements['#result'].hidden);
});

test("the backend passes the connector's refusals on with their status and body; bad input from the page is a 400 and reaches no connector", async (t) => {
  const problem = { type: 'about:blank', title: 'Bad Request', status: 400, detail: 'expected_origins: each must be an https origin' };
  const management = await startManagement({ '/oidc4vp': { status: 400, body: problem } });
  const page = await startDcApiPage({ dcqlQuery: QUERY });
  t.teardown(async () => Promise.all([page.close(), management.close()]));
  page.connect(management.url, API_KEY);
  const post = (path: string, body: string) => fetch(new URL(path, page.url), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });

  const created = await post('/dc-api/session', '{}');
  t.is(created.status, 400);
  t.deepEqual(await created.json(), problem);
  t.deepEqual((management.calls[0]?.body as { expected_origins: string[] }).expected_origins, [new URL(page.url).origin], 'by default the local origin');

  const forwarded = await post('/dc-api/session/unknown/response', JSON.stringify({ origin: ORIGIN, data: { response: 'x' } }));
  t.is(forwarded.status, 404, "the connector's 404 for a session it does not know");
  t.deepEqual(management.calls[1]?.body, { origin: ORIGIN, data: { response: 'x' } }, 'no protocol member when the page sent none');

  const calls = management.calls.length;
  t.is((await post('/dc-api/session/s/response', 'not json')).status, 400);
  t.is((await post('/dc-api/session/s/response', JSON.stringify({ origin: ORIGIN }))).status, 400);
  t.is((await fetch(new URL('/elsewhere', page.url))).status, 404);
  t.is(management.calls.length, calls);
  const script = await fetch(new URL('/dc-api.js', page.url));
  t.is(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
  t.is(await script.text(), await readFile(new URL('../../demo/dc-api/page.js', import.meta.url), 'utf8'));
});

test('a browser without the Digital Credentials API: the page says so and asks nothing', async (t) => {
  const management = await startManagement({});
  const page = await startDcApiPage({ dcqlQuery: QUERY, origin: ORIGIN });
  t.teardown(async () => Promise.all([page.close(), management.close()]));
  page.connect(management.url, API_KEY);
  const { elements, asked } = await runPageScript(page, { withApi: false });
  elements['#verify'].click();
  t.is(await elements['#status'].until((text) => text !== ''), 'This browser has no Digital Credentials API.');
  t.deepEqual(asked, []);
  t.deepEqual(management.calls, []);
});
