// The trusted-list configuration: each bad value is one line naming its variable, the sources
// are read inline or from a file, and static mode stays the default.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { loadConfig } from '../src/config/config.js';
import { categoryPolicies } from '../src/trust/trustResolution.js';
import { createListSigner } from './support/trustLists.js';

const errorsOf = (env: Record<string, string>): string[] => {
  const result = loadConfig(env);
  return result._tag === 'Left' ? result.left : [];
};

test('defaults: static mode, 6h refresh, 24h staleness window, 30s fetch timeout, 10 MiB cap, every category on X509_TRUST_POLICY', (t) => {
  const config = loadConfig({});
  if (config._tag === 'Left') throw new Error(config.left.join('; '));
  t.like(config.right, {
    x509TrustResolutionMode: 'static',
    x509TrustListSources: undefined,
    x509TrustStoreRefreshIntervalMs: 6 * 3_600_000,
    x509StalenessWindowMs: 24 * 3_600_000,
    x509LotlFetchTimeoutMs: 30_000,
    x509MaxResponseBytes: 10_485_760,
  });
  t.deepEqual(categoryPolicies(config.right), { default: 'evaluate', PID: 'evaluate', QEAA: 'evaluate', PUB_EAA: 'evaluate', NON_QUALIFIED_EAA: 'evaluate' });
});

test('a category policy overrides X509_TRUST_POLICY for that category only', (t) => {
  const config = loadConfig({ X509_TRUST_POLICY: 'enforce', X509_TRUST_POLICY_PUB_EAA: 'disabled' });
  if (config._tag === 'Left') throw new Error(config.left.join('; '));
  t.deepEqual(categoryPolicies(config.right), { default: 'enforce', PID: 'enforce', QEAA: 'enforce', PUB_EAA: 'disabled', NON_QUALIFIED_EAA: 'enforce' });
});

test('durations accept 2s, 15m, 6h and 1d', (t) => {
  const config = loadConfig({ X509_TRUST_STORE_REFRESH_INTERVAL: '2s', X509_STALENESS_WINDOW: '1d', X509_LOTL_FETCH_TIMEOUT: '5m' });
  if (config._tag === 'Left') throw new Error(config.left.join('; '));
  t.like(config.right, { x509TrustStoreRefreshIntervalMs: 2000, x509StalenessWindowMs: 86_400_000, x509LotlFetchTimeoutMs: 300_000 });
  const refresh = loadConfig({ X509_TRUST_STORE_REFRESH_INTERVAL: '15m' });
  t.is(refresh._tag === 'Right' ? refresh.right.x509TrustStoreRefreshIntervalMs : 0, 900_000);
});

test('each bad value is one line naming its variable', (t) => {
  const errors = errorsOf({
    X509_TRUST_RESOLUTION_MODE: 'federation',
    X509_TRUST_STORE_REFRESH_INTERVAL: '6 hours',
    X509_STALENESS_WINDOW: '0s',
    X509_LOTL_FETCH_TIMEOUT: '30',
    X509_MAX_RESPONSE_BYTES: '10MB',
    X509_TRUST_POLICY_QEAA: 'strict',
  });
  t.deepEqual(errors.map((e) => e.split(':')[0]), [
    'X509_TRUST_RESOLUTION_MODE',
    'X509_TRUST_STORE_REFRESH_INTERVAL',
    'X509_STALENESS_WINDOW',
    'X509_LOTL_FETCH_TIMEOUT',
    'X509_MAX_RESPONSE_BYTES',
    'X509_TRUST_POLICY_QEAA',
  ]);
  t.regex(errors[1]!, /expected a duration such as 30s, 15m, 6h or 1d/);
});

test('lotl mode needs sources, and sources need lotl mode', (t) => {
  t.deepEqual(errorsOf({ X509_TRUST_RESOLUTION_MODE: 'lotl' }), ['X509_TRUST_LIST_SOURCES: required when X509_TRUST_RESOLUTION_MODE is lotl']);
  t.regex(errorsOf({ X509_TRUST_LIST_SOURCES: '[]' })[0]!, /^X509_TRUST_LIST_SOURCES: must be a non-empty JSON array/);
});

test('sources are validated whole: format, URL, every certificate, territories, status map, unique ids; the value is not echoed', async (t) => {
  const signer = await createListSigner('Test signer');
  const good = { id: 'eu-lotl', format: 'lotl', url: 'https://ec.europa.eu/tools/lotl/eu-lotl.xml', signingCertificates: [signer.base64] };
  const problem = (sources: unknown[]): string => {
    const errors = errorsOf({ X509_TRUST_RESOLUTION_MODE: 'lotl', X509_TRUST_LIST_SOURCES: JSON.stringify(sources) });
    t.is(errors.length, 1);
    t.notRegex(errors[0]!, new RegExp(signer.base64.slice(0, 20).replace(/[+/]/g, '.')));
    return errors[0]!;
  };
  t.regex(problem([{ ...good, format: 'xml' }]), /source 1 \(eu-lotl\)\.format must be one of lotl, tl, lote, got a \d+-character value$/);
  t.regex(problem([{ ...good, url: 'ftp://x' }]), /source 1 \(eu-lotl\)\.url must be an absolute http\(s\) URL/);
  t.regex(problem([{ ...good, signingCertificates: [signer.base64, 'bm90IGEgY2VydA=='] }]), /signingCertificates\[1\] is not a base64 DER X\.509 certificate/);
  t.regex(problem([{ ...good, signingCertificates: [] }]), /signingCertificates must be a non-empty array/);
  t.regex(problem([{ ...good, territories: ['de'] }]), /territories must be a non-empty array of two-letter territory codes/);
  t.regex(problem([{ ...good, format: 'tl', territories: ['DE'] }]), /territories applies to a lotl source only/);
  t.regex(problem([{ ...good, statusMap: { 'http://x': 'maybe' } }]), /statusMap must map status URIs to trusted, withdrawn, suspended/);
  t.regex(problem([good, { ...good, url: 'https://other.example/x.xml' }]), /source 2 repeats the id eu-lotl/);
  t.regex(problem([{ ...good, signingCertficates: [] }]), /source 1 has an unknown member "signingCertficates"/);
});

test('sources may be given as the path of a file holding the JSON array', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'sources-'));
  try {
    const signer = await createListSigner('Test signer');
    const file = join(dir, 'sources.json');
    await writeFile(file, JSON.stringify([{ id: 'pid', format: 'lote', url: 'https://lote.example/pid.jws', signingCertificates: [signer.base64], statusMap: { 'http://x/ok': 'trusted' } }]));
    const config = loadConfig({ X509_TRUST_RESOLUTION_MODE: 'lotl', X509_TRUST_LIST_SOURCES: file });
    if (config._tag === 'Left') throw new Error(config.left.join('; '));
    t.like(config.right.x509TrustListSources?.[0], { id: 'pid', format: 'lote', url: 'https://lote.example/pid.jws', statusMap: { 'http://x/ok': 'trusted' } });
    t.regex(errorsOf({ X509_TRUST_RESOLUTION_MODE: 'lotl', X509_TRUST_LIST_SOURCES: join(dir, 'missing.json') })[0]!, /is neither a JSON array nor the path of a readable file/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
