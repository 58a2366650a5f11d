// A tenant's wallet attestation policy at the token endpoint, over HTTP with real attestations:
// its `wallet_attestation` (required) and `wallet_provider_trust_anchors` apply to its offers; a
// tenant that set none follows WALLET_ATTESTATION (optional here) and WALLET_PROVIDER_TRUST_ANCHORS
// (none here), so the same attestation is refused there.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { dpopProof, newWalletKey } from '../wallet/keys.js';
import { attestationPop, createWalletProvider, walletAttestation, type WalletProvider } from '../wallet/walletProvider.js';
import { startTestService, type TestService } from './support/service.js';
import { newTenant } from './support/tenants.js';
import { PID_CLAIMS } from './support/wallet/issuanceChecks.js';

let s: TestService;
let provider: WalletProvider;
test.before(async () => {
  provider = await createWalletProvider();
  s = await startTestService({ env: { WALLET_ATTESTATION: 'optional' } });
});
test.after.always(async () => {
  await s?.cleanup();
});

const preAuthorizedCode = async (key: string): Promise<string> => {
  const created = await s.management('/offers', { key, method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ credential_configuration_id: 'pid', claims: PID_CLAIMS }) });
  if (created.status !== 201) throw new Error(`POST /offers answered ${created.status}`);
  const { offer_id } = (await created.json()) as { offer_id: string };
  const offer = (await (await s.wallet(`/oidc4vci/offers/${offer_id}`)).json()) as { grants: Record<string, { 'pre-authorized_code': string }> };
  return offer.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']!['pre-authorized_code'];
};

/** A token request for `code` by a new wallet instance, attested by the provider or not. */
const token = async (code: string, attested: boolean): Promise<{ status: number; body: Record<string, unknown> }> => {
  const clientId = `wallet-${randomBytes(4).toString('hex')}`;
  const [instance, dpop] = [await newWalletKey(), await newWalletKey()];
  const headers: Record<string, string> = attested
    ? {
        'OAuth-Client-Attestation': await walletAttestation(provider, { clientId, instanceJwk: instance.publicJwk }),
        'OAuth-Client-Attestation-PoP': await attestationPop(instance, { clientId, audience: s.config.publicUrl }),
      }
    : {};
  const response = await s.wallet('/oidc4vci/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', DPoP: await dpopProof(dpop, { htm: 'POST', htu: `${s.config.publicUrl}/oidc4vci/token` }), ...headers },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': code, client_id: clientId }).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

test("a tenant's wallet_attestation required and its own wallet-provider anchor apply to its offers; another tenant follows the environment", async (t) => {
  const strict = await newTenant(s);
  const relaxed = await newTenant(s);
  const current = await s.management('/settings', { key: strict.key });
  const put = await s.management('/settings', {
    key: strict.key,
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', 'If-Match': current.headers.get('etag')! },
    body: JSON.stringify({ wallet_attestation: 'required', wallet_provider_trust_anchors: [provider.anchor] }),
  });
  t.is(put.status, 200);

  const strictCode = await preAuthorizedCode(strict.key);
  t.like(await token(strictCode, false), { status: 401, body: { error: 'invalid_client' } });
  t.is((await token(strictCode, true)).status, 200, "the tenant's anchor trusts the provider; the refusal spent nothing");

  t.is((await token(await preAuthorizedCode(relaxed.key), false)).status, 200, 'WALLET_ATTESTATION=optional');
  t.like(await token(await preAuthorizedCode(relaxed.key), true), { status: 401, body: { error: 'invalid_client' } }, 'no deployment anchor trusts the provider');
});
