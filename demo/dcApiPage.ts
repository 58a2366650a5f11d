// The integrator's side of the Digital Credentials API as a worked example: a static page
// (demo/dc-api/index.html and page.js, no framework, nothing loaded from elsewhere) and its
// backend's route pair, which holds the API key and talks to the connector's management API:
//   POST /dc-api/session                   -> POST /oidc4vp {flow_type: "dc_api", expected_origins: [origin], dcql_query}
//                                             answers the page {state, dc_api_request}
//   POST /dc-api/session/{state}/response  {origin, protocol, data} as the page got them from the browser
//                                          -> POST /oidc4vp/{state}/dc-api-response, the connector's answer passed back
// The connector's errors reach the page with their status and problem+json body. A real backend
// would keep the state in the user's session rather than hand it to the page, and pass on only
// what the page needs of the verified claims.
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { showJson } from '../wallet/show.js';
import { say } from './print.js';

export interface DcApiPage {
  /** Where the page is served locally. */
  readonly url: string;
  /** The management API to call, known once the connector has started. */
  connect(managementUrl: string, apiKey: string): void;
  close(): Promise<void>;
}

export interface DcApiPageOptions {
  /** What the page asks for. */
  readonly dcqlQuery: unknown;
  /**
   * The origin the browser shows the page under, the session's `expected_origins`: an https
   * origin in front of the local address (a reverse proxy or tunnel); default the local address.
   */
  readonly origin?: string;
}

const PAGE_DIRECTORY = new URL('../../demo/dc-api/', import.meta.url);
const STATIC: Readonly<Record<string, { file: string; type: string }>> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/dc-api.js': { file: 'page.js', type: 'text/javascript; charset=utf-8' },
};
const SESSION = /^\/dc-api\/session\/([^/]+)\/response$/;
const BODY_LIMIT = 1_000_000;

const readJson = async (request: IncomingMessage): Promise<unknown> => {
  let text = '';
  for await (const chunk of request) {
    text += (chunk as Buffer).toString('utf8');
    if (text.length > BODY_LIMIT) throw new Error('the body is too large');
  }
  return JSON.parse(text) as unknown;
};

const send = (answer: ServerResponse, status: number, body: unknown, type = 'application/json'): void => {
  answer.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' }).end(JSON.stringify(body));
};

export const startDcApiPage = async (options: DcApiPageOptions): Promise<DcApiPage> => {
  let management: { url: string; apiKey: string } | undefined;
  let origin = options.origin;
  /** A management API call; its status and body, passed on to the page as they are. */
  const call = async (path: string, body: unknown): Promise<{ status: number; body: unknown; type: string }> => {
    if (!management) throw new Error('the page has no connector yet');
    say(`dc-api page backend: POST ${path}\n${showJson(body)}`);
    const response = await fetch(`${management.url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${management.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as unknown;
    say(`dc-api page backend: ${response.status}\n${showJson(answer)}`);
    return { status: response.status, body: answer, type: response.headers.get('content-type') ?? 'application/json' };
  };
  const route = async (request: IncomingMessage, answer: ServerResponse): Promise<void> => {
    const path = new URL(request.url ?? '/', 'http://page').pathname;
    const page = STATIC[path];
    if (request.method === 'GET' && page !== undefined) {
      answer.writeHead(200, { 'Content-Type': page.type, 'Cache-Control': 'no-store' }).end(await readFile(new URL(page.file, PAGE_DIRECTORY)));
      return;
    }
    const forward = SESSION.exec(path);
    if (request.method !== 'POST' || (path !== '/dc-api/session' && forward === null)) {
      send(answer, 404, { title: 'Not Found' });
      return;
    }
    let body: unknown;
    try {
      body = await readJson(request);
    } catch {
      send(answer, 400, { title: 'The body is not JSON' });
      return;
    }
    if (forward === null) {
      const created = await call('/oidc4vp', { flow_type: 'dc_api', expected_origins: [origin], dcql_query: options.dcqlQuery });
      const { state, dc_api_request: dcApiRequest } = created.body as Record<string, unknown>;
      if (created.status === 201) send(answer, 200, { state, dc_api_request: dcApiRequest });
      else send(answer, created.status, created.body, created.type);
      return;
    }
    const { origin: pageOrigin, protocol, data } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (typeof pageOrigin !== 'string' || typeof data !== 'object' || data === null) {
      send(answer, 400, { title: 'Expected {origin, protocol, data} as the browser returned them' });
      return;
    }
    const state = decodeURIComponent(forward[1]!);
    const verdict = await call(`/oidc4vp/${encodeURIComponent(state)}/dc-api-response`, { origin: pageOrigin, data, ...(typeof protocol === 'string' ? { protocol } : {}) });
    send(answer, verdict.status, verdict.body, verdict.type);
  };
  const server = createServer((request, answer) => {
    route(request, answer).catch((err: Error) => {
      say(`dc-api page backend: ${err.message}`);
      if (!answer.headersSent) send(answer, 502, { title: 'The connector could not be reached', detail: err.message });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  origin ??= new URL(url).origin;
  return {
    url,
    connect: (managementUrl, apiKey) => {
      management = { url: managementUrl, apiKey };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
