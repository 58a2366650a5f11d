// The real, signed documents in test/fixtures/trust-lists (see its README): the EU LoTL 341,
// the Finnish, Slovak and Irish trusted lists it points to, the ECDSA brainpool gematik TSL and
// the Commission's mock EU PID providers LoTE. Their real signatures verify with the certificates
// that pin them, fail with others and with any changed byte; their services parse and map.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import test from 'ava';
import type { Either } from 'fp-ts/lib/Either.js';
import { parseLote, verifyLoteSignature } from '../src/trust/lote.js';
import { resolveIssuer, type TrustSnapshot } from '../src/trust/matching.js';
import { categoryOf, meaningOf } from '../src/trust/serviceMapping.js';
import { SnapshotIndex, type ListEntry } from '../src/trust/snapshotIndex.js';
import { followedPointers, type TrustList } from '../src/trust/trustList.js';
import { verifyTrustList } from '../src/trust/verifyTrustList.js';
import { parseXml, verifyEnvelopedSignature, xmlText } from '../src/trust/xmlSignature.js';
import { createListSigner, signLote } from './support/trustLists.js';

const fixture = (name: string): Buffer => readFileSync(new URL(`../../test/fixtures/trust-lists/${name}`, import.meta.url));

const right = <A>(e: Either<string, A>): A => {
  if (e._tag === 'Left') throw new Error(`expected Right, got Left: ${e.left}`);
  return e.right;
};
const leftOf = <A>(e: Either<string, A>): string => {
  if (e._tag === 'Right') throw new Error('expected Left, got Right');
  return e.left;
};

const FIXTURES: Readonly<Record<string, string>> = {
  'eu-lotl-341.xml': 'fd323ca98c57ce8bab8c614f069b10ce2f437a98bb94b43625a57e1723f416d1',
  'fi-tl-49.xml': '3bf01d99018c0426ed9a8629ffeb3b507b9538a29ac389f3fe86de4548c23b23',
  'sk-tl-95.xml': 'c662c9f5252fa9bca9d98d038f3ae2d139f1406c63e2d8b709ba857e140229c1',
  'ie-tl-18.xml': '4224e6539cb5999ed86007f850b058d9fe8fd3abdf39316d2edfeeebb422b38d',
  'gematik-tsl-10180-ecdsa-brainpool.xml': 'c3da30e4252d47b27a04b333defb1be70db27e9babeb8be136c945c4afd12674',
  'eu-pid-providers-mock-lote.json': 'a491d1f27c40d9e0dbf5fe68b2905a6d276ccf7e0a6f71735afd3e0baf3b7c8b',
};

test('the fixtures are byte for byte the documents published in esig/dss', (t) => {
  for (const [name, sha256] of Object.entries(FIXTURES)) {
    t.is(createHash('sha256').update(fixture(name)).digest('hex'), sha256, name);
  }
});

const LOTL_URL = 'https://ec.europa.eu/tools/lotl/eu-lotl.xml';

/** The certificates LoTL 341's pointer to itself lists: who may sign the LoTL. */
const lotlSigners = (): Uint8Array[] => {
  const text = right(xmlText(fixture('eu-lotl-341.xml')));
  const pointer = /<OtherTSLPointer>((?:(?!<\/OtherTSLPointer>)[\s\S])*EUlistofthelists(?:(?!<\/OtherTSLPointer>)[\s\S])*)<\/OtherTSLPointer>/.exec(text)![1]!;
  return [...pointer.matchAll(/<X509Certificate>([^<]+)<\/X509Certificate>/g)].map((m) => Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'));
};

let lotl: TrustList;

test.before(async () => {
  lotl = right(await verifyTrustList(fixture('eu-lotl-341.xml'), 'lotl', lotlSigners()));
});

test('LoTL 341 verifies with the certificates of its own pointer and states its scheme', (t) => {
  t.is(lotlSigners().length, 7);
  t.like(lotl, { territory: 'EU', sequenceNumber: 341, operator: 'European Commission', listType: 'http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUlistofthelists' });
  t.is(lotl.issuedAt.toISOString(), '2024-05-31T08:10:34.000Z');
  t.is(lotl.nextUpdate?.toISOString(), '2024-12-01T09:10:34.000Z');
  t.is(lotl.services.length, 0);
  t.is(lotl.pointers.length, 43);
  t.is(lotl.pointers.reduce((n, p) => n + p.signingCertificates.length, 0), 151);
});

test('LoTL 341: the XML pointers are followed, not the PDF copies nor the LoTL itself; territories narrow them', (t) => {
  const followed = followedPointers(lotl, LOTL_URL, undefined);
  t.is(followed.length, 31);
  t.true(followed.every((p) => p.mimeType === 'application/vnd.etsi.tsl+xml'));
  t.false(followed.some((p) => p.url === LOTL_URL));
  t.deepEqual(
    followedPointers(lotl, LOTL_URL, ['FI', 'SK']).map((p) => [p.territory, p.url]),
    [['FI', 'https://dp.trustedlist.fi/fi-tl.xml'], ['SK', 'http://tl.nbu.gov.sk/kca/tsl/tsl.xml']],
  );
});

test('LoTL 341 signed by anyone else is refused: a national list signer is not a LoTL signer', async (t) => {
  const fi = followedPointers(lotl, LOTL_URL, ['FI'])[0]!;
  t.regex(leftOf(await verifyTrustList(fixture('eu-lotl-341.xml'), 'lotl', fi.signingCertificates)), /signature value does not verify, with any of the 4 pinned certificates/);
});

const national = [
  { file: 'fi-tl-49.xml', territory: 'FI', sequence: 49, services: 19, signer: 3 },
  { file: 'sk-tl-95.xml', territory: 'SK', sequence: 95, services: 156, signer: 0 },
  { file: 'ie-tl-18.xml', territory: 'IE', sequence: 18, services: 4, signer: 3 },
] as const;

for (const list of national) {
  test(`${list.file} verifies with the certificates its LoTL 341 pointer gives, and only with the one that signed it`, async (t) => {
    const pointer = followedPointers(lotl, LOTL_URL, [list.territory])[0]!;
    const parsed = right(await verifyTrustList(fixture(list.file), 'tl', pointer.signingCertificates));
    t.like(parsed, { territory: list.territory, sequenceNumber: list.sequence });
    t.is(parsed.services.length, list.services);
    const signer = pointer.signingCertificates[list.signer]!;
    t.true((await verifyTrustList(fixture(list.file), 'tl', [signer]))._tag === 'Right');
    const others = pointer.signingCertificates.filter((_, i) => i !== list.signer);
    t.regex(leftOf(await verifyTrustList(fixture(list.file), 'tl', others)), /does not verify/);
  });
}

test('the Slovak list parses every service with its type, status and history', async (t) => {
  const pointer = followedPointers(lotl, LOTL_URL, ['SK'])[0]!;
  const sk = right(await verifyTrustList(fixture('sk-tl-95.xml'), 'tl', pointer.signingCertificates));
  const count = (type: string, status: string) =>
    sk.services.filter((s) => s.type === `http://uri.etsi.org/TrstSvc/Svctype/${type}` && s.statuses[0]?.status === `http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/${status}`).length;
  t.deepEqual(
    [count('TSA/QTST', 'granted'), count('Certstatus/OCSP/QC', 'granted'), count('CA/QC', 'granted'), count('CA/QC', 'withdrawn'), count('QESValidation/Q', 'granted'), count('PSES/Q', 'granted'), count('SignaturePolicyAuthority', 'recognisedatnationallevel'), count('NationalRootCA-QC', 'recognisedatnationallevel')],
    [77, 41, 17, 3, 8, 5, 3, 2],
  );
  t.is(sk.services.reduce((n, s) => n + s.statuses.length - 1, 0), 65);
  t.true(sk.services.every((s) => s.providerName !== ''));
});

test('real services map to no credential category: certificate, time-stamp and validation services do not make a PID or EAA', async (t) => {
  for (const list of national) {
    const pointer = followedPointers(lotl, LOTL_URL, [list.territory])[0]!;
    const parsed = right(await verifyTrustList(fixture(list.file), 'tl', pointer.signingCertificates));
    t.true(parsed.services.every((s) => categoryOf(s.type) === undefined), list.file);
    const meanings = new Set(parsed.services.map((s) => meaningOf(s.statuses[0]?.status, 'tl', undefined)));
    t.true([...meanings].every((m) => m === 'trusted' || m === 'withdrawn'), list.file);
  }
});

test('a credential chained to a real granted CA/QC service is matched but not trusted as a PID or EAA (issuer_not_found)', async (t) => {
  const pointer = followedPointers(lotl, LOTL_URL, ['FI'])[0]!;
  const fi = right(await verifyTrustList(fixture('fi-tl-49.xml'), 'tl', pointer.signingCertificates));
  const granted = fi.services.find((s) => s.statuses[0]?.status?.endsWith('/granted') && s.certificates.length > 0)!;
  const entry: ListEntry = { sourceId: 'eu-lotl', format: 'tl', url: pointer.url, parentUrl: LOTL_URL, list: fi, digest: 'd', statusMap: undefined };
  const index = new SnapshotIndex([entry]);
  const snapshot = usableSnapshot(index);
  const now = new Date('2024-11-15T00:00:00Z');
  const chain = [granted.certificates[0]!];
  t.is((await index.matches(chain, now)).length, 1);
  const resolution = await resolveIssuer(snapshot, chain, now, { isPid: false });
  t.like(resolution, { outcome: 'not_found', category: undefined });
});

const usableSnapshot = (index: SnapshotIndex): TrustSnapshot => ({
  index,
  missing: [],
  freshness: () => ({ usable: true, cachedFallback: false, pastNextUpdate: false, fetchedAt: new Date('2024-11-15T00:00:00Z') }),
  lineage: (list) => [list],
});

test('the gematik TSL, signed with ECDSA on brainpoolP256r1, verifies with its pinned signer and parses 148 services', async (t) => {
  const bytes = fixture('gematik-tsl-10180-ecdsa-brainpool.xml');
  const document = right(parseXml(right(xmlText(bytes))));
  const signature = document.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'Signature').item(0)!;
  const keyInfo = signature.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'X509Certificate').item(0)!;
  const signer = Buffer.from(keyInfo.textContent!.replace(/\s+/g, ''), 'base64');
  t.is(right(await verifyEnvelopedSignature(document, [signer])).subject, 'C=DE, O=gematik GmbH, CN=TSL Signing Unit 4');
  const list = right(await verifyTrustList(bytes, 'tl', [signer]));
  t.like(list, { sequenceNumber: 10180, territory: undefined, operator: 'gematik GmbH' });
  t.is(list.services.length, 148);
  t.is(meaningOf(list.services[0]!.statuses[0]!.status, 'tl', undefined), undefined, 'inaccord has no meaning here');
  const fi = followedPointers(lotl, LOTL_URL, ['FI'])[0]!;
  t.regex(leftOf(await verifyTrustList(bytes, 'tl', fi.signingCertificates)), /does not verify/);
});

/** Changes one byte of `bytes`: the `offset`-th of the text of the first element whose name ends with `element`. */
const changeByte = (bytes: Buffer, element: string, offset: number): Buffer => {
  const copy = Buffer.from(bytes);
  const start = copy.indexOf(`${element}`);
  if (start < 0) throw new Error(`element ${element} not found`);
  const at = copy.indexOf('>', start) + 1 + offset;
  copy[at] = copy[at] === 0x31 ? 0x32 : copy[at]! ^ 0x01;
  return copy;
};

test('one changed byte breaks every real signature: in the content, the signed properties or the signature value', async (t) => {
  const cases: { file: string; pinned: () => Uint8Array[] }[] = [
    { file: 'eu-lotl-341.xml', pinned: lotlSigners },
    ...national.map((n) => ({ file: n.file, pinned: () => [...followedPointers(lotl, LOTL_URL, [n.territory])[0]!.signingCertificates] })),
  ];
  for (const { file, pinned } of cases) {
    const bytes = fixture(file);
    t.is((await verifyTrustList(bytes, file.startsWith('eu-lotl') ? 'lotl' : 'tl', pinned()))._tag, 'Right', file);
    for (const [marker, offset] of [['Name xml:lang=', 3], ['TSLSequenceNumber', 0], ['SigningTime', 3], ['SignatureValue', 5]] as const) {
      const changed = changeByte(bytes, marker, offset);
      t.regex(leftOf(await verifyTrustList(changed, file.startsWith('eu-lotl') ? 'lotl' : 'tl', pinned())), /does not verify/, `${file}: ${marker}`);
    }
  }
});

test('a DOCTYPE added to a real list is refused before parsing, although its signature would still verify', async (t) => {
  const text = fixture('ie-tl-18.xml').toString('utf8');
  const withDoctype = text.replace('?>', '?><!DOCTYPE TrustServiceStatusList [<!ENTITY x "y">]>');
  t.not(withDoctype, text);
  const pinned = [...followedPointers(lotl, LOTL_URL, ['IE'])[0]!.signingCertificates];
  t.is(leftOf(await verifyTrustList(Buffer.from(withDoctype), 'tl', pinned)), 'carries a DOCTYPE declaration');
  t.is(leftOf(xmlText(Buffer.from(text.replace('?>', '?><!ENTITY x "y">')))), 'carries an entity declaration');
});

test('the mock EU PID providers LoTE parses: 17 PID issuance services without status, each trusted, each entity with its country', (t) => {
  const lote = right(parseLote(fixture('eu-pid-providers-mock-lote.json')));
  t.like(lote, { sequenceNumber: 1, territory: 'EU', listType: 'http://uri.etsi.org/19602/LoTEType/EUPIDProvidersList', operator: 'European Commission' });
  t.is(lote.issuedAt.toISOString(), '2025-12-01T13:10:57.000Z');
  t.is(lote.nextUpdate?.toISOString(), '2026-06-01T13:10:57.000Z');
  t.is(lote.services.length, 17);
  t.is(lote.services.reduce((n, s) => n + s.certificates.length, 0), 17);
  t.true(lote.services.every((s) => categoryOf(s.type) === 'PID' && s.statuses[0]?.status === undefined && meaningOf(undefined, 'lote', undefined) === 'trusted'));
  t.deepEqual([...new Set(lote.services.map((s) => s.country))].sort(), ['AT', 'DE', 'EE', 'EL', 'FI', 'FR', 'HU', 'NO', 'PL', 'PT']);
});

test('the mock LoTE signed as a JWS: verified with the pinned certificate, refused with another or with a changed payload; a PID chained to it is trusted', async (t) => {
  const signer = await createListSigner('Test LoTE signer');
  const stranger = await createListSigner('Someone else');
  const payload = JSON.parse(fixture('eu-pid-providers-mock-lote.json').toString('utf8')) as unknown;
  const jws = Buffer.from(await signLote(payload, signer));
  const verified = right(await verifyLoteSignature(jws, [Buffer.from(signer.certificate.rawData)]));
  const lote = right(parseLote(verified.payload));
  t.is(lote.services.length, 17);
  t.regex(leftOf(await verifyLoteSignature(jws, [Buffer.from(stranger.certificate.rawData)])), /does not verify/);
  const [header, body, signature] = jws.toString().split('.');
  const tampered = Buffer.from(body!, 'base64url').toString().replace('"LoTESequenceNumber":1', '"LoTESequenceNumber":2');
  t.regex(leftOf(await verifyLoteSignature(Buffer.from(`${header}.${Buffer.from(tampered).toString('base64url')}.${signature}`), [Buffer.from(signer.certificate.rawData)])), /does not verify/);

  const entry: ListEntry = { sourceId: 'eu-pid', format: 'lote', url: 'https://lote.example/pid', parentUrl: undefined, list: lote, digest: 'd', statusMap: undefined };
  const french = lote.services.find((s) => s.country === 'FR')!;
  const resolution = await resolveIssuer(usableSnapshot(new SnapshotIndex([entry])), [french.certificates[0]!], new Date('2025-12-01T13:10:57Z'), { isPid: true });
  t.like(resolution, { outcome: 'trusted', category: 'PID' });
  t.is(resolution.match?.service.country, 'FR');
});
