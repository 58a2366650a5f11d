// The wallet's own reading of what it holds (wallet/sdJwt.ts, wallet/dcql.ts), against the test
// issuer, which builds its SD-JWTs with code of its own: disclosures named by the claim they
// disclose, credentials refused when their disclosures do not fit, and DCQL queries matched.
import test from 'ava';
import { select } from '../wallet/dcql.js';
import type { AuthorizationRequest, CredentialQuery, CredentialSetQuery } from '../wallet/presentation.js';
import { checkIssuedCredential, claimsOf, holdCredential } from '../wallet/sdJwt.js';
import { createHolder, createTestIssuer, forgedDisclosure, sd, type IssuedCredential } from './support/credentials.js';

const serialised = (credential: IssuedCredential): string => [credential.jwt, ...Object.values(credential.disclosures)].join('~') + '~';

const issueNested = async () => {
  const issuer = await createTestIssuer();
  const holder = await createHolder();
  const credential = await issuer.issue({
    vct: 'urn:eudi:pid:1',
    holder,
    claims: {
      given_name: sd('Erika'),
      address: sd({ street: sd('Heidestr. 17'), country: 'DE', lines: [sd('c/o Gabler'), 'Hinterhaus'] }),
      nationalities: [sd('DE'), 'FR', sd('AT')],
      age_equal_or_over: { '18': sd(true) },
      issuing_country: 'DE',
    },
  });
  return { issuer, holder, credential };
};

test('a held credential names each disclosure as its issuer did: nested properties, array elements, inside disclosed values', async (t) => {
  const { credential } = await issueNested();
  t.deepEqual(holdCredential(serialised(credential)), credential);
  t.deepEqual(Object.keys(credential.disclosures).sort(), [
    'address',
    'address.lines[0]',
    'address.street',
    'age_equal_or_over.18',
    'given_name',
    'nationalities[0]',
    'nationalities[2]',
  ]);
  t.like(claimsOf(credential), {
    given_name: 'Erika',
    address: { street: 'Heidestr. 17', country: 'DE', lines: ['c/o Gabler', 'Hinterhaus'] },
    nationalities: ['DE', 'FR', 'AT'],
    age_equal_or_over: { '18': true },
  });
});

test('a credential with a disclosure it does not commit to, or one referenced twice, is not held', async (t) => {
  const { credential } = await issueNested();
  t.throws(() => holdCredential(`${serialised(credential)}${forgedDisclosure('admin', true)}~`), { message: /does not commit to/ });
  const twice = `${serialised(credential)}${credential.disclosures['given_name']}~`;
  t.throws(() => holdCredential(twice), { message: /does not commit to|twice/ });
  t.throws(() => holdCredential(credential.jwt), { message: /not an SD-JWT/ });
});

test('an issued credential is checked before it is kept: issuer, holder key, signature by its x5c leaf', async (t) => {
  const { issuer, holder, credential } = await issueNested();
  const sdJwt = serialised(credential);
  const expected = { issuer: 'https://issuer.example', holder: holder.publicJwk };
  t.deepEqual(await checkIssuedCredential(sdJwt, expected), credential);
  await t.throwsAsync(checkIssuedCredential(sdJwt, { ...expected, issuer: 'https://other.example' }), { message: /is from https:\/\/issuer\.example/ });
  await t.throwsAsync(checkIssuedCredential(sdJwt, { ...expected, holder: (await createHolder()).publicJwk }), { message: /not bound to the wallet key/ });
  const forged = await issuer.issue({ vct: 'urn:eudi:pid:1', holder, claims: {}, signingKey: (await createTestIssuer()).leaf.keys.privateKey });
  await t.throwsAsync(checkIssuedCredential(serialised(forged), expected), { message: /signature does not verify with its x5c leaf/ });
});

const requestFor = (credentialQueries: CredentialQuery[], credentialSets?: CredentialSetQuery[]): AuthorizationRequest =>
  ({ credentialQueries, transactionData: [], ...(credentialSets ? { credentialSets } : {}) }) as unknown as AuthorizationRequest;

const query = (id: string, vct: string, claims: CredentialQuery['claims']): CredentialQuery => ({ id, format: 'dc+sd-jwt', meta: { vct_values: [vct] }, claims });

test('DCQL: a query is answered by the latest credential of its vct that has every claim asked for, with a value asked for', async (t) => {
  const { holder, credential: nested } = await issueNested();
  const issuer = await createTestIssuer();
  const older = await issuer.issue({ vct: 'urn:eudi:pid:1', holder, claims: { given_name: sd('Max') } });
  const card = await issuer.issue({ vct: 'urn:example:membership:1', holder, claims: { member_number: 'M-1' } });
  const held = [older, nested, card];
  const pick = (queries: CredentialQuery[], sets?: CredentialSetQuery[]) => select(requestFor(queries, sets), held, holder);

  t.is(pick([query('pid', 'urn:eudi:pid:1', [{ path: ['given_name'] }])]).holdings['pid']?.credential, nested);
  t.is(pick([query('pid', 'urn:eudi:pid:1', [{ path: ['given_name'], values: ['Max'] }])]).holdings['pid']?.credential, older);
  t.is(pick([query('pid', 'urn:eudi:pid:1', [{ path: ['nationalities', null] }, { path: ['address', 'lines', 1] }])]).holdings['pid']?.credential, nested);
  t.deepEqual(pick([query('pid', 'urn:eudi:pid:1', [{ path: ['birthdate'] }])]).missing, ['no credential answers query "pid"']);
  t.deepEqual(pick([query('x', 'urn:other:1', [{ path: ['given_name'] }])]).missing, ['no credential answers query "x"']);

  const either = [query('pid', 'urn:eudi:pid:1', [{ path: ['birthdate'] }]), query('card', 'urn:example:membership:1', [{ path: ['member_number'] }])];
  const answered = pick(either, [{ options: [['pid'], ['card']] }]);
  t.deepEqual(answered.missing, []);
  t.deepEqual(Object.keys(answered.holdings), ['card']);
  t.deepEqual(pick(either, [{ options: [['pid']] }]).missing, ['no credentials answer any option of [["pid"]]']);
  t.deepEqual(pick(either, [{ options: [['pid']], required: false }]).missing, []);
});
