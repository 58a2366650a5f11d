// POST /offers validation: every bad input is a problem body naming each failure, and records
// nothing; an unknown configuration is its own problem type.
import test from 'ava';
import { startTestService, type TestService } from './support/service.js';
import { createOffer, PID_CLAIMS } from './support/wallet/issuanceChecks.js';

let service: TestService;

test.before(async () => {
  service = await startTestService();
});

test.after.always(async () => {
  await service?.cleanup();
});

const post = (body: unknown, key?: string) =>
  service.management('/offers', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), ...(key ? { key } : {}) });

interface ProblemBody {
  type: string;
  status: number;
  errors: { location: string; message: string }[];
}

const offerCount = async (): Promise<number> =>
  Number((service.service.runner.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM offers'))?.n ?? 0);

test('an unknown credential configuration is a 422 problem of type unknown_credential_configuration', async (t) => {
  const response = await post({ credential_configuration_id: 'passport', claims: {} });
  t.is(response.status, 422);
  t.is(response.headers.get('content-type'), 'application/problem+json');
  const body = (await response.json()) as ProblemBody;
  t.is(body.type, '/problems/unknown_credential_configuration');
  t.deepEqual(body.errors.map((e) => e.location), ['body.credential_configuration_id']);
});

test('credential configuration ids named like Object.prototype members are unknown: 422 on POST /offers, 404 for their type metadata', async (t) => {
  for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
    const response = await post({ credential_configuration_id: id, claims: {} });
    t.is(response.status, 422, id);
    t.is(((await response.json()) as ProblemBody).type, '/problems/unknown_credential_configuration', id);
    t.is((await service.wallet(`/oidc4vci/types/${id}`)).status, 404, id);
  }
});

test.serial('unknown, missing mandatory, wrongly shaped and connector-set claims are each one errors entry', async (t) => {
  const before = await offerCount();
  const { given_name: _omitted, ...withoutGivenName } = PID_CLAIMS;
  const response = await post({
    credential_configuration_id: 'pid',
    claims: {
      ...withoutGivenName,
      shoe_size: 44,
      birthdate: '12.08.1964',
      address: 'Köln',
      age_equal_or_over: { '18': 'yes', '21': true },
      iss: 'https://evil.example',
      cnf: {},
    },
  });
  t.is(response.status, 400);
  const body = (await response.json()) as ProblemBody;
  t.is(body.type, '/problems/invalid-request');
  t.deepEqual(
    body.errors.map((e) => e.location).sort(),
    [
      'body.claims.address',
      'body.claims.age_equal_or_over["18"]',
      'body.claims.age_equal_or_over["21"]',
      'body.claims.birthdate',
      'body.claims.cnf',
      'body.claims.given_name',
      'body.claims.iss',
      'body.claims.shoe_size',
    ],
  );
  t.regex(body.errors.find((e) => e.location === 'body.claims.iss')!.message, /set by the connector/);
  t.regex(body.errors.find((e) => e.location === 'body.claims.given_name')!.message, /required/);
  t.is(await offerCount(), before);
});

for (const reserved of ['sub', 'iat', 'exp', 'vct']) {
  test(`supplying the standard claim ${reserved} is refused`, async (t) => {
    const response = await post({ credential_configuration_id: 'pid', claims: { ...PID_CLAIMS, [reserved]: 1 } });
    t.is(response.status, 400);
    t.deepEqual(((await response.json()) as ProblemBody).errors.map((e) => e.location), [`body.claims.${reserved}`]);
  });
}

test('a malformed request body or tx_code is a 400 listing each field', async (t) => {
  const response = await post({ credential_configuration_id: '', claims: PID_CLAIMS, tx_code: { input_mode: 'emoji', length: 99 } });
  t.is(response.status, 400);
  t.deepEqual(
    ((await response.json()) as ProblemBody).errors.map((e) => e.location).sort(),
    ['body.credential_configuration_id', 'body.tx_code.input_mode', 'body.tx_code.length'],
  );
  const notAnObject = await post({ credential_configuration_id: 'pid', claims: ['Erika'] });
  t.is(notAnObject.status, 400);
  t.deepEqual(((await notAnObject.json()) as ProblemBody).errors.map((e) => e.location), ['body.claims']);
});

test('tx_code_value is generated only when tx_code is asked for, in the requested mode and length', async (t) => {
  const none = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
  t.is(none.tx_code_value, undefined);
  const text = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, tx_code: { input_mode: 'text', length: 8 } });
  t.regex(text.tx_code_value ?? '', /^[A-Z2-9]{8}$/);
  const numeric = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, tx_code: { input_mode: 'numeric', length: 4 } });
  t.regex(numeric.tx_code_value ?? '', /^\d{4}$/);
});

test('an offer is visible at once with status OFFER_CREATED and without its claims; unknown ids are 404', async (t) => {
  const created = await createOffer(service, { credential_configuration_id: 'membership', claims: { member_number: '1', given_name: 'A', family_name: 'B' } });
  const response = await service.management(`/offers/${created.offer_id}`);
  t.is(response.status, 200);
  const body = (await response.json()) as Record<string, unknown>;
  t.is(body['status'], 'OFFER_CREATED');
  t.is(body['credential_configuration_id'], 'membership');
  t.is(body['claims'], undefined);
  t.is((await service.management(`/offers/00000000-0000-4000-8000-00000000abcd`)).status, 404);
  t.is((await post({ credential_configuration_id: 'pid', claims: PID_CLAIMS }, 'not-a-key')).status, 401);
});
