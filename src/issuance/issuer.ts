// The credential issuer a request is served by (issue 38): the deployment's (identifier
// PUBLIC_URL, the key of the environment, the configurations of CREDENTIAL_CONFIGURATIONS_FILE:
// the single issuer every tenant had before), or a tenant's own, once it has an active issuer key
// and at least one credential configuration (identifier `{PUBLIC_URL}/issuers/{tenant_id}`, its
// active key, its configurations at their current revisions). Resolved per request, so a key
// activated or a configuration changed applies to the next request.
import type { OfferFacts } from '../../streams/offer.js';
import type { TenantSigningKeys } from '../tenantIdentity/ports.js';
import { tenantCredentialIssuer } from '../tenantIdentity/ports.js';
import type { CredentialConfiguration } from './configurations.js';
import type { IssuerSigningKey } from './signingKey.js';
import type { TenantConfigurations } from './tenantConfigurations.js';

export interface Issuer {
  /** The credential issuer identifier: `credential_issuer`, `iss` of what it signs, the base of its endpoints. */
  readonly identifier: string;
  /** What its offers record as their issuer: undefined for the deployment's (its offers record none). */
  readonly recorded: string | undefined;
  /** The tenant whose own issuer this is; undefined for the deployment's. */
  readonly tenantId: string | undefined;
  readonly signingKey: IssuerSigningKey;
  /** The configurations new offers are made with and the metadata shows, by id. */
  readonly configurations: ReadonlyMap<string, CredentialConfiguration>;
  /** The revision a new offer of `id` records (a tenant's own issuer only). */
  revisionOf(id: string): number | undefined;
  /** The configuration an offer is issued with: the revision it recorded, deleted since or not. */
  configurationAt(id: string, revision: number | undefined): CredentialConfiguration | undefined;
}

/** The deployment's issuer: exactly what served every tenant before issue 38. */
export const deploymentIssuer = (publicUrl: string, signingKey: IssuerSigningKey, configurations: ReadonlyMap<string, CredentialConfiguration>): Issuer => ({
  identifier: publicUrl,
  recorded: undefined,
  tenantId: undefined,
  signingKey,
  configurations,
  revisionOf: () => undefined,
  configurationAt: (id) => configurations.get(id),
});

export interface Issuers {
  readonly deployment: Issuer;
  /** The tenant's own issuer; undefined while it lacks an active issuer key or a configuration. */
  ofTenant(tenantId: string): Promise<Issuer | undefined>;
  /**
   * The tenant's own issuer as its Status List Tokens need it: its identifier and active key, whether
   * or not it has configurations left (what it issued keeps its status); undefined without an active key.
   */
  listIssuerOf(tenantId: string): Promise<Pick<Issuer, 'identifier' | 'tenantId' | 'signingKey'> | undefined>;
  /** The issuer a tenant's new offers are made at: its own once it has one, else the deployment's. */
  forOffers(tenantId: string): Promise<Issuer>;
  /** The identifier of the issuer an offer was made at (the management API's view: no key needed). */
  identifierOf(offer: OfferFacts): string;
  /** The configuration an offer is issued with: the deployment's, or the tenant's at the revision the offer recorded. */
  configurationOf(offer: OfferFacts): CredentialConfiguration | undefined;
}

export const issuers = (options: {
  readonly publicUrl: string;
  readonly deployment: Issuer;
  readonly tenantKeys: TenantSigningKeys;
  readonly tenantConfigurations: TenantConfigurations;
}): Issuers => {
  const listIssuerOf = async (tenantId: string): Promise<Pick<Issuer, 'identifier' | 'tenantId' | 'signingKey'> | undefined> => {
    const key = await options.tenantKeys.active(tenantId, 'issuer');
    return key && { identifier: tenantCredentialIssuer(options.publicUrl, tenantId), tenantId, signingKey: { signer: key.signer, x5c: key.x5c } };
  };
  const ofTenant = async (tenantId: string): Promise<Issuer | undefined> => {
    const current = options.tenantConfigurations.current(tenantId);
    if (current.size === 0) return undefined;
    const keyed = await listIssuerOf(tenantId);
    if (keyed === undefined) return undefined;
    return {
      ...keyed,
      recorded: keyed.identifier,
      configurations: new Map([...current].map(([id, revised]) => [id, revised.configuration])),
      revisionOf: (id) => current.get(id)?.revision,
      configurationAt: (id, revision) => (revision === undefined ? undefined : options.tenantConfigurations.atRevision(tenantId, id, revision)),
    };
  };
  return {
    deployment: options.deployment,
    ofTenant,
    listIssuerOf,
    forOffers: async (tenantId) => (await ofTenant(tenantId)) ?? options.deployment,
    identifierOf: (offer) => offer.credentialIssuer ?? options.deployment.identifier,
    configurationOf: (offer) =>
      offer.credentialIssuer === undefined
        ? options.deployment.configurations.get(offer.credentialConfigurationId)
        : offer.configurationRevision === undefined
          ? undefined
          : options.tenantConfigurations.atRevision(offer.tenantId, offer.credentialConfigurationId, offer.configurationRevision),
  };
};
