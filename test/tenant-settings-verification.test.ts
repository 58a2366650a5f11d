// A tenant's trust and status policies at verification, end to end with a wallet: with the
// deployment anchoring no issuer (X509_VERIFY_TRUST_ANCHOR=true, X509_TRUST_POLICY=enforce), the
// bootstrap tenant's extra `x509_trust_anchors` make its presentations of that issuer pass, and its
// `status_list_failure_policy` decides what an unreachable status list does; unset, the
// deployment's apply again (its verifier is rebuilt when its settings' revision changes).
import test from 'ava';
import { x5cOf } from '../src/crypto/certificates.js';
import { sd } from './support/credentials.js';
import { startStatusListServer, type StatusListServer } from './support/statusLists.js';
import { pidQuery, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { answer } from './support/wallet/presentation.js';

let h: VerificationHarness;
let lists: StatusListServer;
test.before(async () => {
  [h, lists] = await Promise.all([startVerificationHarness({ X509_VERIFY_TRUST_ANCHOR: 'true', X509_TRUST_POLICY: 'enforce' }), startStatusListServer()]);
});
test.after.always(async () => {
  await Promise.all([h?.close(), lists?.close()]);
});

const putSettings = async (body: unknown): Promise<void> => {
  const current = await h.service.management('/settings');
  const response = await h.service.management('/settings', { method: 'PUT', headers: { 'Content-Type': 'application/json', 'If-Match': current.headers.get('etag')! }, body: JSON.stringify(body) });
  if (response.status !== 200) throw new Error(`PUT /settings answered ${response.status}: ${await response.text()}`);
};

const present = async (status?: { readonly uri: string }): Promise<Record<string, unknown>> => {
  const credential = await h.issuer.issue({
    vct: 'urn:eudi:pid:1',
    holder: h.holder,
    claims: { given_name: sd('Erika'), family_name: sd('Mustermann'), ...(status ? { status: { status_list: { idx: 0, uri: status.uri } } } : {}) },
  });
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
  await answer(h.endpoints, request, { pid: { credential, holder: h.holder } });
  return h.callback(created.state);
};

const statusOf = (callback: Record<string, unknown>) => (callback['credentials'] as Record<string, Record<string, unknown>[]>)['pid']![0]!;

test.serial("the deployment's: an issuer no anchor names fails under X509_TRUST_POLICY=enforce", async (t) => {
  const callback = await present();
  t.is(callback['status'], 'VERIFICATION_FAILED');
});

test.serial("the tenant's extra anchor: the issuer is trusted; an unreachable status list still fails under STATUS_LIST_FAILURE_POLICY=enforce", async (t) => {
  await putSettings({ x509_trust_anchors: x5cOf([h.issuer.ca.certificate]) });
  t.is((await present())['status'], 'FULFILLED');
  const gone = await present({ uri: lists.url('/lists/gone') });
  t.is(gone['status'], 'VERIFICATION_FAILED');
  t.regex(gone['errorDetails'] as string, /status/);
});

test.serial("the tenant's status_list_failure_policy evaluate: an unreachable list is FULFILLED with statusCheck unavailable", async (t) => {
  await putSettings({ x509_trust_anchors: x5cOf([h.issuer.ca.certificate]), status_list_failure_policy: 'evaluate' });
  const gone = await present({ uri: lists.url('/lists/gone') });
  t.is(gone['status'], 'FULFILLED');
  t.like(statusOf(gone), { supportRevocation: true, statusCheck: 'unavailable' });
});

test.serial("unset again, the deployment's apply: the issuer fails again", async (t) => {
  await putSettings({});
  t.is((await present())['status'], 'VERIFICATION_FAILED');
});
