// The service under test for verification flows, with what a test needs around it: the
// integrator's callback endpoint, a test issuer with a holder, and a wallet pointed at the
// service's real public listener.
import { startReceiver, TEST_WEBHOOK_SECRET, type Receiver } from '../receiver.js';
import type { Logger } from '../../../src/log.js';
import { startTestService, type TestService } from '../service.js';
import { createHolder, createTestIssuer, sd, type Holder, type IssuedCredential, type TestIssuer } from '../credentials.js';
import type { AuthorizationRequest } from '../../../wallet/presentation.js';
import { fetchAuthorizationRequest } from './presentation.js';
import type { WalletEndpoints } from './transport.js';

export const PID_VCT = 'urn:eudi:pid:1';

export interface Created {
  readonly state: string;
  readonly same_device_request_uri: string;
  readonly cross_device_request_uri: string;
}

export interface VerificationHarness {
  readonly service: TestService;
  readonly receiver: Receiver;
  readonly endpoints: WalletEndpoints;
  readonly issuer: TestIssuer;
  readonly holder: Holder;
  /** POST /oidc4vp with the bootstrap key. */
  create(body: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
  /** Creates a request that must succeed. */
  request(body: unknown): Promise<Created>;
  /** Creates a request and fetches its request object as the wallet. */
  requestAndFetch(body: unknown, flow?: 'same-device' | 'cross-device'): Promise<{ created: Created; request: AuthorizationRequest }>;
  /** The callback body delivered for `state`; bounded wait, throws if none came. */
  callback(state: string): Promise<Record<string, unknown>>;
  /** Every callback body delivered for `state` so far. */
  callbacks(state: string): readonly Record<string, unknown>[];
  /** A PID credential bound to the holder: given_name, family_name, birthdate disclosable. */
  pid(options?: { exp?: Date | null; vct?: string }): Promise<IssuedCredential>;
  close(): Promise<void>;
}

export const pidQuery = (extra: Record<string, unknown> = {}) => ({
  credentials: [
    {
      id: 'pid',
      format: 'dc+sd-jwt',
      meta: { vct_values: [PID_VCT] },
      claims: [{ path: ['given_name'] }, { path: ['family_name'] }],
      ...extra,
    },
  ],
});

const bodies = (receiver: Receiver, state: string): Record<string, unknown>[] =>
  receiver.received
    .map((r) => JSON.parse(r.body) as Record<string, unknown>)
    .filter((body) => body['state'] === state);

export const startVerificationHarness = async (
  env: Record<string, string> = {},
  options: Pick<Parameters<typeof startTestService>[0] & object, 'log' | 'dataDir' | 'tenantIdentity'> = {},
): Promise<VerificationHarness> => {
  const receiver = await startReceiver();
  const service = await startTestService({
    ...options,
    env: {
      CALLBACK_URL: receiver.url,
      CALLBACK_SECRET: TEST_WEBHOOK_SECRET,
      PRESENTATION_EXPIRES_IN_MIN: '1',
      PRESENTATION_EXPIRY_INTERVAL_MS: '50',
      ...env,
    },
  });
  const endpoints = { publicUrl: service.config.publicUrl, listenUrl: service.service.publicListenUrl };
  const issuer = await createTestIssuer();
  const holder = await createHolder();
  const create: VerificationHarness['create'] = async (body) => {
    const response = await service.management('/oidc4vp', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
  const request: VerificationHarness['request'] = async (body) => {
    const created = await create(body);
    if (created.status !== 201) throw new Error(`POST /oidc4vp answered ${created.status}: ${JSON.stringify(created.json)}`);
    return created.json as unknown as Created;
  };
  return {
    service,
    receiver,
    endpoints,
    issuer,
    holder,
    create,
    request,
    async requestAndFetch(body, flow = 'cross-device') {
      const created = await request(body);
      const uri = flow === 'same-device' ? created.same_device_request_uri : created.cross_device_request_uri;
      return { created, request: await fetchAuthorizationRequest(endpoints, uri) };
    },
    async callback(state) {
      if (!(await receiver.until(() => bodies(receiver, state).length > 0))) throw new Error(`no callback for ${state}`);
      return bodies(receiver, state)[0]!;
    },
    callbacks: (state) => bodies(receiver, state),
    pid: (options = {}) =>
      issuer.issue({
        vct: options.vct ?? PID_VCT,
        claims: { given_name: sd('Erika'), family_name: sd('Mustermann'), birthdate: sd('1964-08-12') },
        holder,
        ...(options.exp !== undefined ? { exp: options.exp } : {}),
      }),
    async close() {
      await service.cleanup();
      await receiver.close();
    },
  };
};
