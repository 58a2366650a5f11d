// The rules a tenant's verifier follows, without HTTP: how a DCQL query is matched against the
// registration certificate's `credentials` (registeredQueries.ts), and which verifier signs for a
// session (verifiers.ts): the tenant's active key, the deployment's, or none after a rotation.
// End to end over HTTP: verification-tenant-verifiers.test.ts.
import test from 'ava';
import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { x509HashClientId } from '../src/crypto/certificates.js';
import { generateChain, signingIdentity, type SigningIdentity } from '../src/crypto/signingIdentity.js';
import type { RegisteredCredential, VerifierRegistration } from '../src/tenantIdentity/ports.js';
import type { Verifier } from '../src/verification/authorizationRequest.js';
import { DcqlQuery } from '../src/verification/dcql.js';
import { pathCovers, unregisteredRequests } from '../src/verification/registeredQueries.js';
import { tenantVerifiers } from '../src/verification/verifiers.js';
import { rightOf } from './support/either.js';

const PID = 'urn:eudi:pid:1';
const MDL = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';

const registered: readonly RegisteredCredential[] = [
  { format: 'dc+sd-jwt', meta: { vct_values: [PID] }, claims: [{ path: ['given_name'] }, { path: ['address'] }, { path: ['nationalities', null] }] },
  { format: 'mso_mdoc', meta: { doctype_value: MDL }, claims: [{ path: [NS, 'family_name'] }] },
  { format: 'dc+sd-jwt', meta: { vct_values: ['urn:example:type-only'] } },
];

const query = (credentials: readonly unknown[]): DcqlQuery => rightOf(DcqlQuery.decode({ credentials }));
const sdJwt = (id: string, vcts: readonly string[], paths: readonly (readonly (string | number | null)[])[]) => ({
  id,
  format: 'dc+sd-jwt',
  meta: { vct_values: vcts },
  claims: paths.map((path) => ({ path })),
});
const mdoc = (id: string, doctype: string, elements: readonly string[]) => ({
  id,
  format: 'mso_mdoc',
  meta: { doctype_value: doctype },
  claims: elements.map((element) => ({ path: [NS, element] })),
});
const outside = (credentials: readonly unknown[]) => unregisteredRequests(query(credentials), registered, 'body.dcql_query').map((e) => [e.location, e.value]);

test('a registered path covers itself and the sub-claims under it', (t) => {
  t.true(pathCovers(['given_name'], ['given_name']));
  t.true(pathCovers(['address'], ['address', 'locality']));
  t.false(pathCovers(['address', 'locality'], ['address']));
  t.false(pathCovers(['given_name'], ['family_name']));
});

test('a registered null covers any element in its place; a null asked is covered only by a registered null', (t) => {
  t.true(pathCovers(['nationalities', null], ['nationalities', 0]));
  t.true(pathCovers(['nationalities', null], ['nationalities', null]));
  t.false(pathCovers(['nationalities', 0], ['nationalities', null]));
  t.false(pathCovers(['nationalities', 0], ['nationalities', 1]));
});

test('a query inside the registration has nothing outside it', (t) => {
  t.deepEqual(outside([sdJwt('pid', [PID], [['given_name'], ['address', 'street_address'], ['nationalities', 1]]), mdoc('mdl', MDL, ['family_name'])]), []);
});

test('each claim path outside the registration is named with its query and location', (t) => {
  const errors = unregisteredRequests(query([sdJwt('pid', [PID], [['given_name'], ['birthdate']]), mdoc('mdl', MDL, ['family_name', 'portrait'])]), registered, 'body.dcql_query');
  t.deepEqual(
    errors.map((e) => [e.location, e.value]),
    [
      ['body.dcql_query.credentials[0].claims[1].path', ['birthdate']],
      ['body.dcql_query.credentials[1].claims[1].path', [NS, 'portrait']],
    ],
  );
  t.regex(errors[0]!.message, /"pid".*\["birthdate"\]/);
  t.regex(errors[1]!.message, /"mdl".*\["org\.iso\.18013\.5\.1","portrait"\]/);
});

test('an unregistered type is named once, and its claims are not judged again', (t) => {
  t.deepEqual(outside([sdJwt('diploma', ['urn:example:diploma'], [['degree']]), mdoc('pid_mdoc', 'eu.europa.ec.eudi.pid.1', ['family_name'])]), [
    ['body.dcql_query.credentials[0].meta.vct_values[0]', 'urn:example:diploma'],
    ['body.dcql_query.credentials[1].meta.doctype_value', 'eu.europa.ec.eudi.pid.1'],
  ]);
});

test('every vct a query accepts must be registered, and each claim covered for each of them', (t) => {
  t.deepEqual(outside([sdJwt('pid', [PID, 'urn:example:other'], [['given_name']])]), [['body.dcql_query.credentials[0].meta.vct_values[1]', 'urn:example:other']]);
  // Registered for PID, but the type-only entry registers no claims.
  t.deepEqual(outside([sdJwt('pid', [PID, 'urn:example:type-only'], [['given_name']])]), [['body.dcql_query.credentials[0].claims[0].path', ['given_name']]]);
});

test('a type is registered only for its own format', (t) => {
  const sameNameOtherFormat: readonly RegisteredCredential[] = [{ format: 'mso_mdoc', meta: { doctype_value: PID }, claims: [{ path: ['given_name'] }] }];
  const errors = unregisteredRequests(query([sdJwt('pid', [PID], [['given_name']])]), sameNameOtherFormat, 'body.dcql_query');
  t.deepEqual(errors.map((e) => e.location), ['body.dcql_query.credentials[0].meta.vct_values[0]']);
});

// --- which verifier signs for a session

const identity = async (name: string): Promise<SigningIdentity> => {
  const chain = await generateChain(name);
  return signingIdentity([chain.leaf.certificate, chain.ca.certificate], chain.leaf.keys.privateKey);
};
const verifierOf = (id: SigningIdentity): Verifier => ({ identity: id, clientId: x509HashClientId(id.chain[0]!), publicUrl: 'https://verifier.example' });

const world = async () => {
  const deployment = verifierOf(await identity('deployment access'));
  const keys = new Map<string, SigningIdentity>([['a', await identity('tenant a access')]]);
  const registrations = new Map<string, VerifierRegistration>([['a', { registrationCertificate: 'rc.jwt', credentials: registered, enforce: true }]]);
  const verifiers = tenantVerifiers(deployment, {
    tenantKeys: { active: async (tenantId, role) => (role === 'access' ? keys.get(tenantId) : undefined) },
    verifierRegistrations: { of: (tenantId) => registrations.get(tenantId) },
  });
  return { deployment, keys, verifiers };
};

test("a new request is the tenant's own verifier with its registration, else the deployment's", async (t) => {
  const { deployment, keys, verifiers } = await world();
  const own = await verifiers.forNewRequest('a');
  t.is(own.clientId, x509HashClientId(keys.get('a')!.chain[0]!));
  t.is(own.identity, keys.get('a')!);
  t.is(own.registration?.registrationCertificate, 'rc.jwt');
  const other = await verifiers.forNewRequest('b');
  t.is(other.clientId, deployment.clientId);
  t.is(other.registration, undefined);
});

test('a session is signed for by the key whose client id it recorded; after a rotation, by none', async (t) => {
  const { keys, verifiers } = await world();
  const recorded = (await verifiers.forNewRequest('a')).clientId;
  t.is(rightOf(await verifiers.forSession({ tenantId: 'a', clientId: recorded })).identity, keys.get('a')!);
  keys.set('a', await identity('tenant a access, rotated'));
  const after = await verifiers.forSession({ tenantId: 'a', clientId: recorded });
  t.true(isLeft(after) && after.left._tag === 'VerifierKeyReplaced');
  // Its key withdrawn altogether (the deployment's would now serve new requests): still none.
  keys.delete('a');
  t.true(isLeft(await verifiers.forSession({ tenantId: 'a', clientId: recorded })));
});

test("another tenant's session is never signed with a tenant's key, even when it names that key's client id", async (t) => {
  const { keys, verifiers } = await world();
  const clientIdOfA = x509HashClientId(keys.get('a')!.chain[0]!);
  t.true(isLeft(await verifiers.forSession({ tenantId: 'b', clientId: clientIdOfA })));
});

test("a session made under the deployment's verifier keeps it, also once its tenant has a key; one recorded without a client id is the deployment's", async (t) => {
  const { deployment, verifiers } = await world();
  const madeBefore = await verifiers.forSession({ tenantId: 'a', clientId: deployment.clientId });
  t.true(isRight(madeBefore));
  t.is(rightOf(madeBefore).identity, deployment.identity);
  t.is(rightOf(madeBefore).registration?.registrationCertificate, 'rc.jwt');
  t.is(rightOf(await verifiers.forSession({ tenantId: 'b' })).identity, deployment.identity);
});
