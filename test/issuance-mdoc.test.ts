// mdocs issued by this connector (OpenID4VCI 1.0, Appendix A.2): the built-in mDL and PID
// configurations in the issuer metadata, offers with namespaced claims checked element by
// element, the credential endpoint's IssuerSigned for the wallet's key, and the mDL presented
// back to this connector's verifier, revoked and refused.
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { jwkThumbprintBytes } from '../src/mdoc/sessionTranscript.js';
import { checkIssuedMdoc, presentMdoc, readIssuerSigned } from '../wallet/mdoc.js';
import { encryptResponse } from '../wallet/presentation.js';
import { withReachablePublicUrl } from './support/service.js';
import { startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { IssuanceWallet } from './support/wallet/issuance.js';
import { createOffer, waitForOffer } from './support/wallet/issuanceChecks.js';
import { postResponse } from './support/wallet/presentation.js';

const MDL = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const PID = 'eu.europa.ec.eudi.pid.1';

const MDL_CLAIMS = {
  [NS]: {
    family_name: 'Mustermann',
    given_name: 'Erika',
    birth_date: '1964-08-12',
    issue_date: '2024-01-02',
    expiry_date: '2034-01-01',
    issuing_country: 'DE',
    issuing_authority: 'Kraftfahrt-Bundesamt',
    document_number: 'B072RRE2I55',
    portrait: Buffer.from([0xff, 0xd8, 0xff, 0xe0]).toString('base64url'),
    driving_privileges: [{ vehicle_category_code: 'B', issue_date: '2024-01-02', expiry_date: '2034-01-01' }],
    un_distinguishing_sign: 'D',
  },
};

let h: VerificationHarness;

test.before(async () => {
  h = await withReachablePublicUrl((env) => startVerificationHarness({ ...env, STATUS_LIST_TTL_SECONDS: '1' }));
});

test.after.always(async () => h?.close());

test('the issuer metadata describes the built-in mDL and PID mdocs per OpenID4VCI A.2', async (t) => {
  const response = await h.service.wallet('/.well-known/openid-credential-issuer');
  const configurations = ((await response.json()) as { credential_configurations_supported: Record<string, Record<string, unknown>> }).credential_configurations_supported;
  t.like(configurations['mdl'], {
    format: 'mso_mdoc',
    doctype: MDL,
    scope: 'mdl',
    cryptographic_binding_methods_supported: ['cose_key'],
    credential_signing_alg_values_supported: [-7],
    proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256'] } },
  });
  const claims = (configurations['mdl']?.['credential_metadata'] as { claims: { path: string[]; mandatory: boolean }[] }).claims;
  t.deepEqual(claims.find((c) => c.path[1] === 'portrait'), { path: [NS, 'portrait'], mandatory: true, display: [{ name: 'Portrait', locale: 'en' }] });
  t.like(configurations['pid_mdoc'], { format: 'mso_mdoc', doctype: PID });
  t.is((await h.service.wallet('/.well-known/vct/mdl')).status === 200, false);
});

test('POST /offers checks each mdoc element against the configuration: one 400 entry per bad element', async (t) => {
  const response = await h.service.management('/offers', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      credential_configuration_id: 'mdl',
      claims: { [NS]: { ...MDL_CLAIMS[NS], birth_date: '12.08.1964', portrait: 'not base64url!', driving_privileges: [{ issue_date: '2024-01-02' }], hair_colour: 'brown', document_number: undefined } },
    }),
  });
  t.is(response.status, 400);
  const errors = ((await response.json()) as { errors: { location: string; message: string }[] }).errors;
  t.deepEqual(
    errors.map((e) => e.location).sort(),
    [
      'body.claims["org.iso.18013.5.1"].birth_date',
      'body.claims["org.iso.18013.5.1"].document_number',
      'body.claims["org.iso.18013.5.1"].driving_privileges',
      'body.claims["org.iso.18013.5.1"].hair_colour',
      'body.claims["org.iso.18013.5.1"].portrait',
    ],
  );
  t.is(errors.find((e) => e.location.endsWith('birth_date'))?.message, 'expected a full-date (YYYY-MM-DD)');
});

test('an mDL issued to the wallet, presented back: FULFILLED with the values as offered; revoked, VERIFICATION_FAILED', async (t) => {
  const s = h.service;
  const offer = await createOffer(s, { credential_configuration_id: 'mdl', claims: MDL_CLAIMS });
  const wallet = await IssuanceWallet.create(s.config.publicUrl, s.service.publicListenUrl);
  const credential = await wallet.receive(offer.credential_offer_uri);
  await waitForOffer(s, offer.offer_id, (b) => b.status === 'ISSUED' && b.claims_purged);
  t.deepEqual(await checkIssuedMdoc(credential, { docType: MDL, holder: wallet.holderKey.publicJwk }), MDL_CLAIMS);

  const present = async (): Promise<Record<string, unknown>> => {
    const { created, request } = await h.requestAndFetch({
      dcql_query: { credentials: [{ id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: MDL }, claims: [{ path: [NS, 'family_name'] }, { path: [NS, 'driving_privileges'] }] }] },
    });
    const deviceResponse = presentMdoc(readIssuerSigned(credential), {
      docType: MDL,
      disclose: [[NS, 'family_name'], [NS, 'driving_privileges']],
      deviceKey: wallet.holderKey.privateKey,
      handover: { clientId: request.clientId, nonce: request.nonce, responseUri: request.responseUri, jwkThumbprint: await jwkThumbprintBytes(request.encryptionKey) },
    });
    await postResponse(h.endpoints, request, { response: await encryptResponse(request, { vp_token: { mdl: [deviceResponse] }, state: request.state }) });
    return h.callback(created.state);
  };
  const fulfilled = await present();
  t.is(fulfilled['status'], 'FULFILLED', String(fulfilled['errorDetails']));
  const [mdl] = (fulfilled['credentials'] as Record<string, Record<string, unknown>[]>)['mdl'] ?? [];
  t.like(mdl, { format: 'mso_mdoc', doctype: MDL, supportRevocation: true });
  t.deepEqual(mdl?.['claims'], { [NS]: { family_name: 'Mustermann', driving_privileges: MDL_CLAIMS[NS].driving_privileges } });

  const revoked = await s.management(`/offers/${offer.offer_id}/credential-status`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ status: 'revoked' }) });
  t.is(revoked.status, 200);
  await sleep(1_100); // the verifier's cached list lives STATUS_LIST_TTL_SECONDS
  t.like(await present(), { status: 'VERIFICATION_FAILED', errorDetails: 'credential is revoked: its status list says INVALID' });
});
