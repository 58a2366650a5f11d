// Names from a message that select something, each fed the names an object inherits or treats
// specially (`__proto__`, `constructor`, `toString`, `hasOwnProperty`, `valueOf`): an mdoc MSO's
// digestAlgorithm, DCQL credential query ids, an mdoc query's namespace and element, an SD-JWT VC
// claims path, a DC API protocol, an issuance configuration's claim names. Each gets the clean
// answer (a refusal with its reason, or the name taken as a plain name), never a crash into
// PROCESSING_ERROR, and Object.prototype is left as it was.
import test from 'ava';
import { createCertificateAuthority, createLeafCertificate, type CertifiedKey } from '../src/crypto/certificates.js';
import { keySigner } from '../src/crypto/signer.js';
import { dataItem, decodeCbor, embeddedBytes, encodeCbor } from '../src/mdoc/cbor.js';
import { fullDate } from '../src/mdoc/claims.js';
import { parseCoseSign1, signCoseSign1, x5chainHeader } from '../src/mdoc/cose.js';
import { buildIssuerSigned } from '../src/mdoc/issuerSigned.js';
import { jwkThumbprintBytes } from '../src/mdoc/sessionTranscript.js';
import { validateClaims } from '../src/issuance/claims.js';
import { parseCredentialConfigurations } from '../src/issuance/configurations.js';
import { selectsAValue } from '../src/verification/claimPaths.js';
import { claimWithoutRequestedValue } from '../src/verification/dcql.js';
import { newWalletKey, type WalletKey } from '../wallet/keys.js';
import { presentMdoc, readIssuerSigned } from '../wallet/mdoc.js';
import { encryptResponse } from '../wallet/presentation.js';
import { dcApiBody } from './support/dcApi.js';
import { rightOf } from './support/either.js';
import { startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { postResponse } from './support/wallet/presentation.js';

const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'] as const;
const MDL = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const DAY = 86_400_000;

let h: VerificationHarness;
let signer: CertifiedKey;
let device: WalletKey;
let mdl: string;

/** An mDL signed by the test document signer; `nameSpaces` default to one element of NS. */
const issueMdl = async (nameSpaces = new Map([[NS, new Map<string, unknown>([['family_name', 'Mustermann'], ['birth_date', fullDate('1964-08-12')]])]])): Promise<string> => {
  const now = new Date();
  const issued = await buildIssuerSigned({
    docType: MDL,
    nameSpaces,
    deviceKey: device.publicJwk,
    validFrom: new Date(now.getTime() - DAY),
    validUntil: new Date(now.getTime() + DAY),
    signer: { signer: keySigner(signer.keys.privateKey), x5chain: [new Uint8Array(signer.certificate.rawData)] },
    now,
  });
  return Buffer.from(issued).toString('base64url');
};

/** The same mdoc with its MSO's digestAlgorithm replaced and issuerAuth signed again by the document signer. */
const withDigestAlgorithm = async (credential: string, digestAlgorithm: string): Promise<string> => {
  const issuerSigned = rightOf(decodeCbor(Buffer.from(credential, 'base64url'))) as Map<string, unknown>;
  const issuerAuth = rightOf(parseCoseSign1(issuerSigned.get('issuerAuth'), 'issuerAuth'));
  const mso = rightOf(decodeCbor(embeddedBytes(rightOf(decodeCbor(issuerAuth.payload!)))!)) as Map<string, unknown>;
  mso.set('digestAlgorithm', digestAlgorithm);
  issuerSigned.set('issuerAuth', await signCoseSign1(encodeCbor(dataItem(mso)), keySigner(signer.keys.privateKey), x5chainHeader([new Uint8Array(signer.certificate.rawData)])));
  return Buffer.from(encodeCbor(issuerSigned)).toString('base64url');
};

test.before(async () => {
  h = await startVerificationHarness();
  const ca = await createCertificateAuthority({ commonName: 'Test IACA' });
  signer = await createLeafCertificate(ca, { commonName: 'Test Document Signer', subjectAltNames: [{ type: 'url', value: 'https://mdl-issuer.example' }] });
  device = await newWalletKey();
  mdl = await issueMdl();
});

test.after.always(async () => h.close());

test.afterEach.always((t) => {
  for (const name of ['polluted', 'x', 'name']) t.false(Object.hasOwn(Object.prototype, name), `Object.prototype.${name}`);
});

const mdlQuery = (id: string, paths: readonly (readonly [string, string])[]) => ({ id, format: 'mso_mdoc', meta: { doctype_value: MDL }, claims: paths.map((path) => ({ path })) });

/** A cross-device session for `credentials`; the wallet answers `credential` (an mdoc) under `id`, disclosing `disclose`. */
const presentMdl = async (credentials: unknown[], id: string, credential: string, disclose: [string, string][]) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: { credentials } }, 'cross-device');
  const deviceResponse = presentMdoc(readIssuerSigned(credential), {
    docType: MDL,
    disclose,
    deviceKey: device.privateKey,
    handover: { clientId: request.clientId, nonce: request.nonce, responseUri: request.responseUri, jwkThumbprint: await jwkThumbprintBytes(request.encryptionKey) },
  });
  // A computed key: an own member, even when it is __proto__.
  const vpToken = { [id]: [deviceResponse] };
  await postResponse(h.endpoints, request, { response: await encryptResponse(request, { vp_token: vpToken, state: request.state }) });
  return h.callback(created.state);
};

for (const name of NAMES) {
  test(`an MSO digestAlgorithm ${JSON.stringify(name)} is VERIFICATION_FAILED with the reason, not PROCESSING_ERROR`, async (t) => {
    const callback = await presentMdl([mdlQuery('mdl', [[NS, 'family_name']])], 'mdl', await withDigestAlgorithm(mdl, name), [[NS, 'family_name']]);
    t.like(callback, { status: 'VERIFICATION_FAILED' });
    t.regex(String(callback['errorDetails']), new RegExp(`MSO digestAlgorithm "${name}" is not SHA-256, SHA-384 or SHA-512`));
  });

  for (const element of ['name', 'toString']) {
    test(`an mdoc query for the element ${element} of a namespace ${JSON.stringify(name)} the mdoc does not hold is VERIFICATION_FAILED`, async (t) => {
      const callback = await presentMdl([mdlQuery('mdl', [[NS, 'family_name'], [name, element]])], 'mdl', mdl, [[NS, 'family_name']]);
      t.like(callback, { status: 'VERIFICATION_FAILED', errorDetails: `requested element ${name}/${element} is not returned` });
    });
  }

  test(`an mdoc query for an element ${JSON.stringify(name)} the mdoc does not hold is VERIFICATION_FAILED`, async (t) => {
    const callback = await presentMdl([mdlQuery('mdl', [[NS, name]])], 'mdl', mdl, [[NS, 'family_name']]);
    t.like(callback, { status: 'VERIFICATION_FAILED', errorDetails: `requested element ${NS}/${name} is not returned` });
  });

  test(`POST /oidc4vp refuses the DC API protocol ${JSON.stringify(name)} with 400`, async (t) => {
    const { status, json } = await h.create(dcApiBody([mdlQuery('mdl', [[NS, 'family_name']])], { dc_api_protocols: [name] }));
    t.is(status, 400);
    t.deepEqual((json['errors'] as { location: string }[]).map((e) => e.location), ['body.dc_api_protocols[0]']);
  });

  test(`an SD-JWT VC claims path ${JSON.stringify(name)} selects nothing the payload does not hold`, (t) => {
    t.false(selectsAValue({ given_name: 'Erika' }, [name]));
    t.false(selectsAValue({ address: { locality: 'Berlin' } }, ['address', name]));
    t.true(selectsAValue(JSON.parse(`{"${name}": 1}`), [name]));
    const claim = { path: [name], values: ['x'] };
    t.is(claimWithoutRequestedValue([claim], {}), claim);
  });

  test(`an offer without the mandatory claim ${JSON.stringify(name)} of its configuration is refused, at the top or nested`, (t) => {
    const [configuration] = parseCredentialConfigurations({
      credential_configurations: [{
        id: 'odd', vct: 'urn:example:odd', display: [{ lang: 'en', name: 'Odd' }],
        claims: [
          { path: [name], mandatory: true, sd: 'always', display: [{ lang: 'en', name }] },
          { path: ['nested', name], mandatory: true, sd: 'always', display: [{ lang: 'en', name }] },
        ],
      }],
    }, 'test');
    const errors = validateClaims(configuration!, { nested: {} }, 'body.claims');
    t.deepEqual(errors.map((e) => e.message), ['required; a mandatory claim of this credential configuration', 'required; a mandatory claim of this credential configuration']);
  });
}

for (const name of NAMES.filter((n) => n !== '__proto__')) {
  test(`a DCQL credential query id ${JSON.stringify(name)} is a plain id: FULFILLED, the credential under that id`, async (t) => {
    const callback = await presentMdl([mdlQuery(name, [[NS, 'family_name']])], name, mdl, [[NS, 'family_name']]);
    t.is(callback['status'], 'FULFILLED', String(callback['errorDetails']));
    const credentials = callback['credentials'] as Record<string, Record<string, unknown>[]>;
    t.deepEqual(Object.keys(credentials), [name]);
    t.deepEqual(Object.hasOwn(credentials, name) ? credentials[name]?.[0]?.['claims'] : undefined, { [NS]: { family_name: 'Mustermann' } });
  });
}

test('a DCQL credential query id __proto__ is refused at creation (400): no wallet answer may carry that member', async (t) => {
  const { status, json } = await h.create({ dcql_query: { credentials: [mdlQuery('__proto__', [[NS, 'family_name']])] } });
  t.is(status, 400);
  t.deepEqual((json['errors'] as { location: string }[]).map((e) => e.location), ['body.dcql_query.credentials[0].id']);
});

test('an mdoc namespace named __proto__ asked for and returned is a plain namespace: FULFILLED, and no prototype changes', async (t) => {
  const odd = await issueMdl(new Map([[NS, new Map<string, unknown>([['family_name', 'Mustermann']])], ['__proto__', new Map<string, unknown>([['polluted', 'yes'], ['x', 1]])]]));
  const callback = await presentMdl([mdlQuery('mdl', [[NS, 'family_name'], ['__proto__', 'polluted']])], 'mdl', odd, [[NS, 'family_name'], ['__proto__', 'polluted'], ['__proto__', 'x']]);
  t.is(callback['status'], 'FULFILLED', String(callback['errorDetails']));
  const [credential] = (callback['credentials'] as Record<string, Record<string, unknown>[]>)['mdl'] ?? [];
  const claims = credential?.['claims'] as Record<string, unknown>;
  t.deepEqual(Object.keys(claims), [NS, '__proto__']);
  t.deepEqual(Object.getOwnPropertyDescriptor(claims, '__proto__')?.value, { polluted: 'yes' });
});
