// Two organisations on one connector (issue 38): each a tenant with an API key (made as
// `ops tenants create` makes them), onboarded through the management API as docs/onboarding.md
// tells: an issuer key and an access key certified at once by the deployment's development CA
// (POST /signing-keys with development_chain), both activated, and a credential configuration of
// its own. Each then shows the wallet its own face: its credential issuer identifier, its
// `x509_hash:` client id.
import { certificatesFromPem, subjectAltNamesOf, x509HashClientId } from '../src/crypto/certificates.js';
import { showJson } from '../wallet/show.js';
import type { Say } from '../wallet/commands.js';

export interface NewTenant {
  readonly tenantId: string;
  readonly apiKey: string;
}

export interface Organisation extends NewTenant {
  readonly name: string;
  /** `{PUBLIC_URL}/issuers/{tenant_id}`, as its issuer metadata names it. */
  readonly credentialIssuer: string;
  /** The `x509_hash:` of its active access certificate. */
  readonly clientId: string;
  /** The type of the card it issues (its configuration `card`). */
  readonly vct: string;
}

/** The configuration each organisation creates: a card of its own type, in CREDENTIAL_CONFIGURATIONS' shape. */
export const cardConfiguration = (name: string, vct: string) => ({
  id: 'card',
  vct,
  display: [{ lang: 'en', name: `${name} card` }],
  claims: [
    { path: ['card_number'], mandatory: true, sd: 'never', value_type: 'string', display: [{ lang: 'en', name: 'Card number' }] },
    { path: ['given_name'], mandatory: true, sd: 'always', value_type: 'string', display: [{ lang: 'en', name: 'Given name' }] },
    { path: ['family_name'], mandatory: true, sd: 'always', value_type: 'string', display: [{ lang: 'en', name: 'Family name' }] },
  ],
});

type Envelope = { id: string; etag: string; data: Record<string, unknown> };

/** Onboards `tenant` as `name` through the management API at `managementUrl`, saying each call. */
export const onboardOrganisation = async (managementUrl: string, name: string, tenant: NewTenant, say: Say): Promise<Organisation> => {
  const call = async (method: string, path: string, body?: unknown, ifMatch?: string): Promise<Envelope> => {
    say(`${method} ${path}${ifMatch ? ` (If-Match: ${ifMatch})` : ''}${body === undefined ? '' : `\n${showJson(body)}`}`);
    const response = await fetch(`${managementUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${tenant.apiKey}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...(ifMatch ? { 'If-Match': ifMatch } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as Envelope;
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
  const activeKey = async (role: 'issuer' | 'access'): Promise<Envelope> => {
    const created = await call('POST', '/signing-keys', { role, development_chain: true });
    say(`${created.id}: ${String(created.data['state'])}, certified by the development CA until ${String(created.data['not_after'])}`);
    const activated = await call('POST', `/signing-keys/${created.id}/activate`, undefined, created.etag);
    say(`${activated.id}: ${String(activated.data['state'])}`);
    return activated;
  };
  const issuerKey = await activeKey('issuer');
  const accessKey = await activeKey('access');
  const vct = `urn:example:${name.toLowerCase()}:card:1`;
  await call('POST', '/credential-configurations', { data: cardConfiguration(name, vct) });
  const [issuerLeaf] = certificatesFromPem(String(issuerKey.data['certificate_chain']));
  const [accessLeaf] = certificatesFromPem(String(accessKey.data['certificate_chain']));
  if (!issuerLeaf || !accessLeaf) throw new Error(`${name}: an active key without its certificate`);
  // The issuer certificate names the tenant's credential issuer identifier (its URI subjectAltName).
  const credentialIssuer = subjectAltNamesOf(issuerLeaf).find((n) => n.type === 'url')?.value;
  if (credentialIssuer === undefined) throw new Error(`${name}: the issuer certificate names no credential issuer`);
  return { ...tenant, name, credentialIssuer, clientId: x509HashClientId(accessLeaf), vct };
};
