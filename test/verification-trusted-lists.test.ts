// lotl mode end to end: the service follows a signed LoTL (to a German and a French list) and a
// PID providers LoTE served on loopback, and each presentation's callback carries the enriched
// trust fields of the spec, under each policy, in both device flows. Also: the PID-only rule,
// per-category policies, static anchors beside the lists, the digests recorded with each outcome,
// and DCQL trusted_authorities of type etsi_tl.
import test from 'ava';
import { trustListStream } from '../streams/trustList.js';
import { x509 } from '../src/crypto/x509.js';
import { listKey } from '../src/trust/listRecord.js';
import { sd, type TestIssuer } from './support/credentials.js';
import { PID_VCT, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { answer } from './support/wallet/presentation.js';
import { startTrustWorld, type TrustWorld } from './support/trustListWorld.js';

const ATTESTATION_VCT = 'urn:example:diploma:1';

let world: TrustWorld;
const harnesses = new Map<string, Promise<VerificationHarness>>();

test.before(async () => {
  world = await startTrustWorld();
});

test.after.always(async () => {
  for (const h of harnesses.values()) await (await h).close();
  await world?.close();
});

/** One service per configuration, shared by the tests that use it. */
const harness = (env: Record<string, string>): Promise<VerificationHarness> => {
  const key = JSON.stringify(env);
  let h = harnesses.get(key);
  if (!h) {
    h = startVerificationHarness({ X509_TRUST_RESOLUTION_MODE: 'lotl', X509_TRUST_LIST_SOURCES: world.sources, ...env });
    harnesses.set(key, h);
  }
  return h;
};

const query = (vct: string, extra: Record<string, unknown> = {}) => ({
  credentials: [{ id: 'cred', format: 'dc+sd-jwt', meta: { vct_values: [vct] }, claims: [{ path: ['given_name'] }, { path: ['family_name'] }], ...extra }],
});

interface Presented {
  readonly state: string;
  readonly callback: Record<string, unknown>;
  readonly posted: { status: number; body: Record<string, unknown> };
}

const present = async (
  h: VerificationHarness,
  issuer: TestIssuer,
  vct: string,
  flow: 'same-device' | 'cross-device',
  extra: Record<string, unknown> = {},
): Promise<Presented> => {
  const { created, request } = await h.requestAndFetch({ dcql_query: query(vct, extra), redirect_uri: 'https://rp.example/done' }, flow);
  const credential = await issuer.issue({ vct, claims: { given_name: sd('Erika'), family_name: sd('Mustermann') }, holder: h.holder });
  const posted = await answer(h.endpoints, request, { cred: { credential, holder: h.holder } });
  return { state: created.state, callback: await h.callback(created.state), posted };
};

const credentialOf = (callback: Record<string, unknown>): Record<string, unknown> =>
  (callback['credentials'] as Record<string, Record<string, unknown>[]>)['cred']![0]!;

const ENRICHED = ['credentialCategory', 'trustSource', 'supervisoryMemberState', 'qualifiedStatus', 'trustDataTimestamp', 'trustFailureReason', 'staleTrustData'];

interface Case {
  readonly name: string;
  readonly issuer: keyof TrustWorld['issuers'];
  readonly vct: string;
  /** The trust fields expected in the credential object (evaluate); absent keys must be absent. */
  readonly fields: Record<string, unknown>;
}

const cases: readonly Case[] = [
  {
    name: 'a PID provider in the LoTE',
    issuer: 'pid',
    vct: PID_VCT,
    fields: { isTrusted: true, credentialCategory: 'PID', trustSource: 'lotl', supervisoryMemberState: 'DE', qualifiedStatus: false },
  },
  {
    name: 'a QEAA provider granted in a national list',
    issuer: 'qeaa',
    vct: ATTESTATION_VCT,
    fields: { isTrusted: true, credentialCategory: 'QEAA', trustSource: 'lotl', supervisoryMemberState: 'DE', qualifiedStatus: true },
  },
  {
    name: 'a withdrawn provider',
    issuer: 'withdrawn',
    vct: ATTESTATION_VCT,
    fields: { isTrusted: false, credentialCategory: 'QEAA', trustSource: 'untrusted', supervisoryMemberState: 'DE', qualifiedStatus: false, trustFailureReason: 'issuer_withdrawn' },
  },
  {
    name: 'a suspended provider',
    issuer: 'suspended',
    vct: ATTESTATION_VCT,
    fields: { isTrusted: false, credentialCategory: 'PUB_EAA', trustSource: 'untrusted', supervisoryMemberState: 'FR', qualifiedStatus: false, trustFailureReason: 'issuer_suspended' },
  },
  {
    name: 'an unknown issuer',
    issuer: 'unknown',
    vct: ATTESTATION_VCT,
    fields: { isTrusted: false, trustSource: 'untrusted', qualifiedStatus: false, trustFailureReason: 'issuer_not_found' },
  },
];

const assertTrustFields = (t: import('ava').ExecutionContext, credential: Record<string, unknown>, fields: Record<string, unknown>): void => {
  t.like(credential, { supportTrustAnchor: true, isCertificateRevoked: false, ...fields });
  for (const name of ENRICHED.filter((n) => n !== 'trustDataTimestamp')) t.is(name in credential, name in fields, name);
  t.true(typeof credential['trustDataTimestamp'] === 'string' && !Number.isNaN(Date.parse(credential['trustDataTimestamp'] as string)));
};

const responseCodeOf = (posted: Presented['posted']): string | null =>
  typeof posted.body['redirect_uri'] === 'string' ? new URL(posted.body['redirect_uri']).searchParams.get('response_code') : null;

for (const c of cases) {
  for (const flow of ['same-device', 'cross-device'] as const) {
    test(`evaluate, ${flow}: ${c.name} is FULFILLED with its trust fields`, async (t) => {
      const h = await harness({ X509_TRUST_POLICY: 'evaluate' });
      const { callback, posted } = await present(h, world.issuers[c.issuer], c.vct, flow);
      t.is(callback['status'], 'FULFILLED');
      assertTrustFields(t, credentialOf(callback), c.fields);
      t.is(callback['responseCode'] ?? null, flow === 'same-device' ? responseCodeOf(posted) : null);
    });

    test(`enforce, ${flow}: ${c.name} is ${c.fields['isTrusted'] ? 'FULFILLED' : 'VERIFICATION_FAILED, a trust-enforcement failure'}`, async (t) => {
      const h = await harness({ X509_TRUST_POLICY: 'enforce' });
      const { callback, posted } = await present(h, world.issuers[c.issuer], c.vct, flow);
      if (c.fields['isTrusted']) {
        t.is(callback['status'], 'FULFILLED');
        assertTrustFields(t, credentialOf(callback), c.fields);
      } else {
        t.is(callback['status'], 'VERIFICATION_FAILED');
        t.regex(callback['errorDetails'] as string, new RegExp(`^issuer is not trusted \\(${c.fields['trustFailureReason'] as string}\\)`));
        t.false('credentials' in callback);
      }
      // Same device: redirected with a response code for FULFILLED and trust failures alike.
      if (flow === 'same-device') {
        t.truthy(callback['responseCode']);
        t.is(callback['responseCode'], responseCodeOf(posted));
      } else {
        t.false('responseCode' in callback);
      }
    });

    test(`disabled, ${flow}: ${c.name} is FULFILLED without trust fields`, async (t) => {
      const h = await harness({ X509_TRUST_POLICY: 'disabled' });
      const { callback } = await present(h, world.issuers[c.issuer], c.vct, flow);
      t.is(callback['status'], 'FULFILLED');
      const credential = credentialOf(callback);
      t.is(credential['supportTrustAnchor'], false);
      for (const name of ['isTrusted', 'isCertificateRevoked', ...ENRICHED]) t.false(name in credential, name);
    });
  }
}

test('a PID from a QEAA provider is not trusted: only a PID provider\'s service makes a PID trusted', async (t) => {
  const h = await harness({ X509_TRUST_POLICY: 'evaluate' });
  const { callback } = await present(h, world.issuers.qeaa, PID_VCT, 'cross-device');
  assertTrustFields(t, credentialOf(callback), { isTrusted: false, credentialCategory: 'PID', trustSource: 'untrusted', qualifiedStatus: false, trustFailureReason: 'issuer_not_found' });
});

test('policies per category: X509_TRUST_POLICY_QEAA=enforce refuses a withdrawn QEAA provider while a suspended Pub-EAA one is only reported', async (t) => {
  const h = await harness({ X509_TRUST_POLICY: 'evaluate', X509_TRUST_POLICY_QEAA: 'enforce' });
  const withdrawn = await present(h, world.issuers.withdrawn, ATTESTATION_VCT, 'cross-device');
  t.is(withdrawn.callback['status'], 'VERIFICATION_FAILED');
  t.regex(withdrawn.callback['errorDetails'] as string, /issuer_withdrawn\): service "Old diplomas" of Withdrawn Provider GmbH in http:\/\/127\.0\.0\.1:\d+\/de\.xml$/);
  const suspended = await present(h, world.issuers.suspended, ATTESTATION_VCT, 'cross-device');
  t.is(suspended.callback['status'], 'FULFILLED');
  t.like(credentialOf(suspended.callback), { isTrusted: false, trustFailureReason: 'issuer_suspended' });
});

test('static anchors still count in lotl mode with X509_VERIFY_TRUST_ANCHOR=true: an issuer no list knows is trusted as static', async (t) => {
  const anchor = Buffer.from(world.issuers.unknown.ca.certificate.rawData).toString('base64');
  const h = await harness({ X509_TRUST_POLICY: 'enforce', X509_VERIFY_TRUST_ANCHOR: 'true', X509_TRUST_ANCHORS: anchor });
  const unknown = await present(h, world.issuers.unknown, ATTESTATION_VCT, 'cross-device');
  t.is(unknown.callback['status'], 'FULFILLED');
  assertTrustFields(t, credentialOf(unknown.callback), { isTrusted: true, trustSource: 'static', qualifiedStatus: false });
  const qeaa = await present(h, world.issuers.qeaa, ATTESTATION_VCT, 'cross-device');
  t.like(credentialOf(qeaa.callback), { isTrusted: true, trustSource: 'lotl' });
});

const recordedDigest = async (h: VerificationHarness, key: string): Promise<string> => {
  const read = await h.service.service.store.readStream(trustListStream(key));
  if (read._tag !== 'Found') throw new Error(`no stream for ${key}`);
  return (read.events.find((e) => e.type === 'TrustListVersionAccepted')!.data as { digest: string }).digest;
};

test('each outcome records the SHA-256 of the list versions that decided it', async (t) => {
  const h = await harness({ X509_TRUST_POLICY: 'evaluate' });
  const outcome = async (issuer: TestIssuer, vct: string) => {
    const { state } = await present(h, issuer, vct, 'cross-device');
    const read = await h.service.service.store.readStream(`presentation-${state}`);
    if (read._tag !== 'Found') throw new Error('no presentation stream');
    return read.events.at(-1)!.data as { trustListDigests?: string[] };
  };
  const lotl = await recordedDigest(h, listKey('eu-lotl'));
  const de = await recordedDigest(h, listKey('eu-lotl', world.urls.de));
  const lote = await recordedDigest(h, listKey('eu-pid'));
  t.deepEqual((await outcome(world.issuers.qeaa, ATTESTATION_VCT)).trustListDigests, [de, lotl]);
  t.deepEqual((await outcome(world.issuers.pid, PID_VCT)).trustListDigests, [lote]);
  t.is((await outcome(world.issuers.unknown, ATTESTATION_VCT)).trustListDigests?.length, 4);
});

test('the enforced failure records its digests too', async (t) => {
  const h = await harness({ X509_TRUST_POLICY: 'enforce' });
  const { state } = await present(h, world.issuers.withdrawn, ATTESTATION_VCT, 'cross-device');
  const read = await h.service.service.store.readStream(`presentation-${state}`);
  if (read._tag !== 'Found') throw new Error('no presentation stream');
  const failed = read.events.at(-1)!;
  t.is(failed.type, 'PresentationVerificationFailed');
  t.deepEqual((failed.data as { trustListDigests: string[] }).trustListDigests, [await recordedDigest(h, listKey('eu-lotl', world.urls.de)), await recordedDigest(h, listKey('eu-lotl'))]);
});

test('trusted_authorities etsi_tl: a list the issuer is trusted through (or its LoTL) satisfies the query; another list does not', async (t) => {
  const h = await harness({ X509_TRUST_POLICY: 'evaluate' });
  const etsi = (...values: string[]) => ({ trusted_authorities: [{ type: 'etsi_tl', values }] });
  t.is((await present(h, world.issuers.qeaa, ATTESTATION_VCT, 'cross-device', etsi(world.urls.de))).callback['status'], 'FULFILLED');
  t.is((await present(h, world.issuers.qeaa, ATTESTATION_VCT, 'cross-device', etsi(world.urls.lotl))).callback['status'], 'FULFILLED');
  t.is((await present(h, world.issuers.pid, PID_VCT, 'cross-device', etsi(world.urls.lote))).callback['status'], 'FULFILLED');
  const elsewhere = await present(h, world.issuers.qeaa, ATTESTATION_VCT, 'cross-device', etsi(world.urls.fr));
  t.is(elsewhere.callback['status'], 'VERIFICATION_FAILED');
  t.regex(elsewhere.callback['errorDetails'] as string, /trusted_authorities/);
  // Listed but withdrawn: the list does not vouch for it.
  t.is((await present(h, world.issuers.withdrawn, ATTESTATION_VCT, 'cross-device', etsi(world.urls.de))).callback['status'], 'VERIFICATION_FAILED');
  // Either authority may vouch: an aki that matches satisfies the query even if the list does not.
  const aki = world.issuers.suspended.leaf.certificate.getExtension(x509.AuthorityKeyIdentifierExtension)!.keyId!;
  const either = { trusted_authorities: [{ type: 'etsi_tl', values: [world.urls.de] }, { type: 'aki', values: [Buffer.from(aki, 'hex').toString('base64url')] }] };
  t.is((await present(h, world.issuers.suspended, ATTESTATION_VCT, 'cross-device', either)).callback['status'], 'FULFILLED');
});

test('trusted_authorities etsi_tl naming a list this instance does not follow is refused at creation', async (t) => {
  const h = await harness({ X509_TRUST_POLICY: 'evaluate' });
  const { status, json } = await h.create({ dcql_query: query(ATTESTATION_VCT, { trusted_authorities: [{ type: 'etsi_tl', values: [world.urls.de, 'https://tl.example/other.xml'] }] }) });
  t.is(status, 400);
  t.deepEqual((json['errors'] as { location: string }[]).map((e) => e.location), ['body.dcql_query.credentials[0].trusted_authorities[0].values[1]']);
  t.is(world.server.hits(world.paths.dePdf), 0);
});
