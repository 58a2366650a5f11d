import { performance } from 'node:perf_hooks';
const { startTrustWorld } = await import('../dist/test/support/trustListWorld.js');
const { openSqliteEventStore } = await import('../dist/src/eventstore/sqlite.js');
const { directoryBlobStore } = await import('../dist/src/resources/blobStore.js');
const { TrustListStore } = await import('../dist/src/trust/trustListStore.js');
const { parseTrustListSources } = await import('../dist/src/trust/trustListSources.js');
const { createLotlTrustVerifier } = await import('../dist/src/trust/lotlTrust.js');
const { createTrustVerifier } = await import('../dist/src/trust/issuerTrust.js');
const { createCrlChecker } = await import('../dist/src/trust/crl.js');
const { silentLogger } = await import('../dist/src/log.js');
const w = await startTrustWorld();
const store = await openSqliteEventStore({ file: '/tmp/prof-' + Date.now() + '.sqlite' });
const { readFileSync } = await import('node:fs');
const { xmlText, parseXml } = await import('../dist/src/trust/xmlSignature.js');
const { parseTrustedListXml } = await import('../dist/src/trust/trustedListXml.js');
const { followedPointers } = await import('../dist/src/trust/trustList.js');
const fx = (n) => readFileSync('test/fixtures/trust-lists/' + n);
const l341 = parseTrustedListXml(parseXml(xmlText(fx('eu-lotl-341.xml')).right).right).right;
const real = process.env.REAL ? [['fi-tl-49.xml','FI'],['sk-tl-95.xml','SK'],['ie-tl-18.xml','IE']].map(([f,t]) => { w.server.serve('/'+f, {status:200, body: fx(f)}); return { id: 'r'+t, format: 'tl', url: w.server.url('/'+f), signingCertificates: followedPointers(l341, 'x', [t])[0].signingCertificates }; }) : [];
const lists = new TrustListStore({ sources: [...parseTrustListSources(w.sources), ...real], store, blobs: await directoryBlobStore('/tmp/prof-blobs'), bounds: { timeoutMs: 5000, maxBytes: 1e7 }, stalenessWindowMs: 864e5, log: silentLogger, actor: 'x', startedAt: new Date(Date.now() - 1000) });
await lists.refresh(new Date());
const crl = createCrlChecker({ timeoutMs: 1000 });
const lotl = createLotlTrustVerifier({ lists, staticAnchors: undefined, crl, policies: { default: 'evaluate', PID: 'evaluate', QEAA: 'evaluate', PUB_EAA: 'evaluate', NON_QUALIFIED_EAA: 'evaluate' }, pidVcts: new Set(['urn:eudi:pid:1']) });
const bare = createTrustVerifier({ verifyTrustAnchor: false, anchors: [], crl });
const chain = [w.issuers.pid.leaf.certificate];
for (const [name, v] of [['lotl', lotl], ['bare', bare], ['lotl', lotl], ['bare', bare]]) {
  const n = 3000; const t0 = performance.now();
  for (let i = 0; i < n; i++) await v.verify(chain, new Date(), { vct: 'urn:eudi:pid:1' });
  console.log(name, ((performance.now() - t0) / n * 1000).toFixed(1), 'us');
}

const { verifySdJwtVcPresentation } = await import('../dist/src/verification/sdJwtVc.js');
const { createHolder, present, sd } = await import('../dist/test/support/credentials.js');
const holder = await createHolder();
const credential = await w.issuers.pid.issue({ vct: 'urn:eudi:pid:1', holder, claims: { given_name: sd('E'), family_name: sd('M') } });
const vp = await present(credential, { disclose: ['given_name', 'family_name'], keyBinding: { holder, aud: 'c', nonce: 'n' } });
const req = { vctValues: ['urn:eudi:pid:1'], claimPaths: [['given_name'], ['family_name']], requireHolderBinding: true };
const ctx = { clientId: 'c', nonce: 'n', now: new Date(), transactionData: [], credentialId: 'pid' };
const tot = { lotl: 0, bare: 0 };
for (let r = 0; r < 20; r++) for (const [name, v] of (r % 2 ? [['lotl', lotl], ['bare', bare]] : [['bare', bare], ['lotl', lotl]])) {
  const n = 200; const t0 = performance.now();
  for (let i = 0; i < n; i++) { const x = await verifySdJwtVcPresentation(vp, req, ctx, v); if (x._tag !== 'Right') throw new Error('x'); }
  if (r >= 2) tot[name] += (performance.now() - t0) / n;
}
console.log('full verify us', (tot.lotl / 18 * 1000).toFixed(0), (tot.bare / 18 * 1000).toFixed(0));
await store.close(); await w.close();
