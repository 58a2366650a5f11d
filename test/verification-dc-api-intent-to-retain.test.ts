// `intent_to_retain` is optional on mdoc claims over the Digital Credentials API as on the other
// channels (OpenID4VP 1.0 B.2.4; HAIP 1.0 adds no requirement): a DC API session whose mdoc query
// leaves it out is created, signed, unsigned and in Annex C form, and the wallet simulator
// (wallet/dcApi.ts, playing browser and wallet) answers it to FULFILLED over real HTTP. Where
// ISO/IEC 18013-5 needs a value (Annex C's ItemsRequest) the absent one is `false`.
import test from 'ava';
import { decode as fromCbor, type Tag } from 'cbor2';
import { createCertificateAuthority, createLeafCertificate } from '../src/crypto/certificates.js';
import { keySigner } from '../src/crypto/signer.js';
import { fullDate } from '../src/mdoc/claims.js';
import { buildIssuerSigned } from '../src/mdoc/issuerSigned.js';
import { answerDcApiRequest } from '../wallet/dcApi.js';
import { newWalletKey, type WalletKey } from '../wallet/keys.js';
import type { StoredCredential } from '../wallet/store.js';
import { createDcApi, MDL, NS, ORIGIN, readRequest, type DcApiEntry } from './support/dcApi.js';
import { startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';

const DAY = 86_400_000;

let h: VerificationHarness;
let holderKey: WalletKey;
let credentials: StoredCredential[];

test.before(async () => {
  h = await startVerificationHarness();
  holderKey = await newWalletKey();
  const ca = await createCertificateAuthority({ commonName: 'Test IACA', country: 'DE' });
  const signer = await createLeafCertificate(ca, { commonName: 'Test Document Signer', country: 'DE', subjectAltNames: [{ type: 'url', value: 'https://mdl-issuer.example' }] });
  const now = new Date();
  const mdl = await buildIssuerSigned({
    docType: MDL,
    nameSpaces: new Map([[NS, new Map<string, unknown>([['family_name', 'Mustermann'], ['birth_date', fullDate('1964-08-12')], ['age_over_18', true]])]]),
    deviceKey: holderKey.publicJwk,
    validFrom: new Date(now.getTime() - DAY),
    validUntil: new Date(now.getTime() + DAY),
    signer: { signer: keySigner(signer.keys.privateKey), x5chain: [new Uint8Array(signer.certificate.rawData)] },
    now,
  });
  credentials = [{ credential: Buffer.from(mdl).toString('base64url'), format: 'mso_mdoc', doctype: MDL, issuer: 'https://mdl-issuer.example', received_at: now.toISOString() }];
});

test.after.always(async () => h.close());

/** An mdoc query none of whose claims says intent_to_retain. */
const query = { id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: MDL }, claims: [{ path: [NS, 'family_name'] }, { path: [NS, 'age_over_18'] }] };

const forward = async (state: string, body: unknown) => {
  const response = await h.service.management(`/oidc4vp/${state}/dc-api-response`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};

for (const protocol of ['openid4vp-v1-signed', 'openid4vp-v1-unsigned', 'org-iso-mdoc'] as const) {
  test(`${protocol}: an mdoc query without intent_to_retain is created and the wallet simulator's answer is FULFILLED`, async (t) => {
    const created = await createDcApi(h, [query], { dc_api_protocols: [protocol] });
    const [entry] = created.dc_api_request as DcApiEntry[];
    if (entry === undefined) return t.fail('no dc_api_request');
    if (protocol === 'org-iso-mdoc') {
      // The ItemsRequest needs a value for each element: false.
      const request = fromCbor(Buffer.from(String(entry.data['deviceRequest']), 'base64url')) as { docRequests: { itemsRequest: Tag }[] };
      const items = fromCbor(request.docRequests[0]!.itemsRequest.contents as Uint8Array) as { nameSpaces: Record<string, Record<string, boolean>> };
      t.deepEqual(items.nameSpaces, { [NS]: { family_name: false, age_over_18: false } });
    } else {
      // The OpenID4VP request carries the query as it was given.
      t.deepEqual((await readRequest(entry)).parameters['dcql_query'], { credentials: [query] });
    }
    const answer = await answerDcApiRequest(created.dc_api_request, { origin: ORIGIN, holderKey, credentials });
    t.is(answer.protocol, protocol);
    const answered = await forward(created.state, answer);
    t.is(answered.status, 200);
    t.is(answered.json['status'], 'FULFILLED', String(answered.json['errorDetails']));
    const [credential] = (answered.json['credentials'] as Record<string, Record<string, unknown>[]>)['mdl'] ?? [];
    t.deepEqual(credential?.['claims'], { [NS]: { family_name: 'Mustermann', age_over_18: true } });
  });
}
