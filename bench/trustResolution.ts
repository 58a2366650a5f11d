// What lotl mode costs a presentation: SD-JWT VC verification with trust resolved against the
// trusted lists (X509_TRUST_RESOLUTION_MODE=lotl) beside the same verification in static mode
// with anchoring on (X509_VERIFY_TRUST_ANCHOR=true), in the same run. The lists are the real
// Finnish, Slovak and Irish lists (verified against LoTL 341's pointers), plus a LoTL with two
// national lists and a PID providers LoTE of our own, all fetched over loopback HTTP and recorded
// in a SQLite store as the service does; the credential's issuer is a PID provider of the LoTE.
// Both sides end trusted. The target is the issue's: trust resolution costs less than 5%.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isLeft } from 'fp-ts/lib/Either.js';
import { openSqliteEventStore } from '../src/eventstore/sqlite.js';
import { silentLogger } from '../src/log.js';
import { createCredentialStatusChecker } from '../src/verification/status/statusCheck.js';
import { createStatusListClient } from '../src/verification/status/statusListClient.js';
import { directoryBlobStore } from '../src/blobStore.js';
import { createCrlChecker } from '../src/trust/crl.js';
import { createTrustVerifier } from '../src/trust/issuerTrust.js';
import { createLotlTrustVerifier } from '../src/trust/lotlTrust.js';
import { followedPointers, type TrustList } from '../src/trust/trustList.js';
import { TrustListStore } from '../src/trust/trustListStore.js';
import { parseTrustListSources, type TrustListSource } from '../src/config/trust.js';
import { parseTrustedListXml } from '../src/trust/trustedListXml.js';
import { parseXml, xmlText } from '../src/trust/xmlSignature.js';
import { verifySdJwtVcPresentation, type CredentialRequirements, type PresentationContext } from '../src/verification/formats/sdJwtVc/sdJwtVc.js';
import { createHolder, sd } from '../test/support/credentials.js';
import { present } from '../wallet/sdJwt.js';
import { startTrustWorld } from '../test/support/trustListWorld.js';
import { interleavedRounds } from './load.js';
import type { Figure } from './report.js';
import { loopbackEgress } from '../test/support/egress.js';

const CLIENT_ID = 'x509_hash:bench';
const NONCE = 'bench-nonce';
const VCT = 'urn:eudi:pid:1';
const REAL = [
  { file: 'fi-tl-49.xml', territory: 'FI' },
  { file: 'sk-tl-95.xml', territory: 'SK' },
  { file: 'ie-tl-18.xml', territory: 'IE' },
] as const;

/** Presentations a side takes in one turn before the other side's. */
const BLOCK = 50;

const fixture = (name: string): Buffer => readFileSync(new URL(`../../test/fixtures/trust-lists/${name}`, import.meta.url));

/** LoTL 341, read (not fetched) only to pin the real national lists' signers. */
const readLotl341 = (): TrustList => {
  const text = xmlText(fixture('eu-lotl-341.xml'));
  const document = isLeft(text) ? text : parseXml(text.right);
  const list = isLeft(document) ? document : parseTrustedListXml(document.right);
  if (isLeft(list)) throw new Error(`bench: LoTL 341 does not parse: ${list.left}`);
  return list.right;
};

export interface TrustResolutionBenchOptions {
  readonly dir: string;
  readonly rounds: number;
  readonly roundSeconds: number;
  readonly progress?: (message: string) => void;
}

export const trustResolutionFigures = async (options: TrustResolutionBenchOptions): Promise<Figure[]> => {
  const world = await startTrustWorld();
  const store = await openSqliteEventStore({ file: join(options.dir, 'trust-lists.sqlite') });
  try {
    const lotl341 = readLotl341();
    const real: TrustListSource[] = REAL.map(({ file, territory }) => {
      world.server.serve(`/${file}`, { status: 200, body: fixture(file) });
      const pointer = followedPointers(lotl341, 'https://ec.europa.eu/tools/lotl/eu-lotl.xml', [territory])[0]!;
      return { id: `real-${territory.toLowerCase()}`, format: 'tl', url: world.server.url(`/${file}`), signingCertificates: pointer.signingCertificates };
    });
    const lists = new TrustListStore({
      sources: [...(parseTrustListSources(world.sources) as TrustListSource[]), ...real],
      store,
      blobs: await directoryBlobStore(join(options.dir, 'trust-list-blobs')),
      bounds: { timeoutMs: 30_000, maxBytes: 10 * 1024 * 1024 },
      stalenessWindowMs: 86_400_000,
      log: silentLogger,
      actor: 'bench',
      startedAt: new Date(Date.now() - 1000),
    });
    await lists.refresh(new Date());
    const snapshot = lists.snapshot();
    if (snapshot.missing.length > 0) throw new Error(`bench: lists not fetched: ${snapshot.missing.join(', ')}`);

    const crl = createCrlChecker({ egress: loopbackEgress, timeoutMs: 1000 });
    const lotl = createLotlTrustVerifier({
      lists,
      staticAnchors: undefined,
      crl,
      policies: { default: 'evaluate', PID: 'evaluate', QEAA: 'evaluate', PUB_EAA: 'evaluate', NON_QUALIFIED_EAA: 'evaluate' },
      pidVcts: new Set([VCT]),
      pidDoctypes: new Set(),
    });
    const issuer = world.issuers.pid;
    const anchored = createTrustVerifier({ verifyTrustAnchor: true, anchors: [issuer.ca.certificate], crl, policy: 'evaluate' });
    const unanchored = createTrustVerifier({ verifyTrustAnchor: false, anchors: [], crl });

    const holder = await createHolder();
    const credential = await issuer.issue({ vct: VCT, holder, claims: { given_name: sd('Erika'), family_name: sd('Mustermann') } });
    const presentation = await present(credential, { disclose: ['given_name', 'family_name'], keyBinding: { holder, aud: CLIENT_ID, nonce: NONCE } });
    const requirements: CredentialRequirements = { vctValues: [VCT], claimPaths: [['given_name'], ['family_name']], requireHolderBinding: true };
    const context: PresentationContext = { audience: CLIENT_ID, nonce: NONCE, now: new Date(), transactionData: [], credentialId: 'pid' };
    // These credentials carry no status reference: the checker never fetches.
    const status = createCredentialStatusChecker({
      policy: 'enforce',
      client: createStatusListClient({ fetch: { egress: loopbackEgress, timeoutMs: 5000, maxBytes: 1 << 20 }, trust: unanchored, cacheMaxSeconds: 3600, cacheMaxBytes: 1 << 24 }),
    });
    const verify = (trust: typeof lotl, expected: { isTrusted?: boolean; trustSource?: string }) => async (): Promise<void> => {
      const result = await verifySdJwtVcPresentation(presentation, requirements, context, trust, status);
      if (isLeft(result) || result.right.credential.isTrusted !== expected.isTrusted || result.right.credential.trustSource !== expected.trustSource) {
        throw new Error(`bench: presentation not trusted as expected: ${JSON.stringify(isLeft(result) ? result.left : result.right.credential)}`);
      }
    };
    const ours = verify(lotl, { isTrusted: true, trustSource: 'lotl' });
    const reference = verify(anchored, { isTrusted: true });
    const untrusting = verify(unanchored, {});

    const warm = await interleavedRounds(1, 200, 50, ours, reference);
    const perRound = Math.max(100, Math.round((warm.ours[0] ?? 100) * options.roundSeconds));
    const certificates = snapshot.index.size;
    options.progress?.(`trust resolution: ${options.rounds} rounds of ${perRound} presentations a side; ${snapshot.index.lists.length} lists, ${certificates} service certificates indexed`);
    const sides = await interleavedRounds(options.rounds, perRound, BLOCK, ours, reference);
    const bare = await interleavedRounds(options.rounds, perRound, BLOCK, ours, untrusting);
    return [
      {
        name: 'presentation verification, lotl vs static trust',
        unit: 'presentations/s',
        ours: sides.ours,
        reference: sides.reference,
        target: { atLeast: 0.95 },
        note:
          `ours: verifySdJwtVcPresentation in lotl mode (KB-JWT, 2 disclosures), the issuer resolved against ${snapshot.index.lists.length} lists ` +
          `(${certificates} service certificates: the real FI 49, SK 95 and IE 18 lists, a LoTL with DE and FR lists, a PID providers LoTE) fetched, verified and recorded once; ` +
          'reference: the same verification in static mode with X509_VERIFY_TRUST_ANCHOR=true and the issuer CA as the anchor; both trusted, no CRLs; ' +
          `one at a time, ${perRound} a round a side, the sides taking turns every ${BLOCK}.`,
      },
      {
        name: 'presentation verification, lotl vs static without anchoring',
        unit: 'presentations/s',
        ours: bare.ours,
        reference: bare.reference,
        target: { atLeast: 0.95 },
        note:
          'ours: as above; reference: the same verification in static mode as deployed by default (X509_VERIFY_TRUST_ANCHOR=false: ' +
          'the chain validated, no trust resolved at all), so the ratio is the whole cost of resolving trust against the lists.',
      },
    ];
  } finally {
    await store.close();
    await world.close();
  }
};
