// A tenant's own credential configurations (credential-configuration resources, issue 38): the
// port the issuance steps read them through, and its implementation over the resources read model
// (projections/resources.ts; the resources feature writes them, src/resources/credentialConfigurations.ts).
import { isLeft } from 'fp-ts/lib/Either.js';
import type { SqlReader } from '../../projections/projection.js';
import { findRevision, liveCredentialConfigurationRevisions } from '../../projections/resources.js';
import { CREDENTIAL_CONFIGURATION_KIND, configurationResourceId } from '../../streams/credentialConfiguration.js';
import { checkCredentialConfiguration, type CredentialConfiguration } from './configurations.js';

/** A configuration at the revision of its resource. */
export interface RevisedConfiguration {
  readonly configuration: CredentialConfiguration;
  readonly revision: number;
}

export interface TenantConfigurations {
  /** The tenant's live configurations by configuration id, each at its current revision (empty: it has none). */
  current(tenantId: string): ReadonlyMap<string, RevisedConfiguration>;
  /** A configuration at the revision an offer was made with, deleted since or not; undefined if it never was. */
  atRevision(tenantId: string, configurationId: string, revision: number): CredentialConfiguration | undefined;
}

/** How many decoded revisions are kept; past it the oldest kept goes (a miss only decodes again). */
const CACHED_REVISIONS = 10_000;

/**
 * TenantConfigurations over the read model. A revision never changes once written, so each is
 * read and decoded once and kept by resource id and revision; a call then costs one indexed query
 * (`current`: the ids and revisions of the tenant's live ones) or none (`atRevision` of a kept one).
 */
export const tenantConfigurations = (db: SqlReader): TenantConfigurations => {
  const cache = new Map<string, CredentialConfiguration | undefined>();
  const revisionOf = (tenantId: string, resourceId: string, revision: number): CredentialConfiguration | undefined => {
    const key = `${tenantId}/${resourceId}/${revision}`;
    if (cache.has(key)) return cache.get(key);
    const envelope = findRevision(db, { tenantId, kind: CREDENTIAL_CONFIGURATION_KIND.name, id: resourceId }, revision);
    if (envelope === undefined) return undefined; // not yet written, perhaps: not kept
    // Checked when written; one that no longer passes (the rules tightened since) is not issued.
    const checked = checkCredentialConfiguration(envelope.data);
    const configuration = isLeft(checked) ? undefined : checked.right;
    if (cache.size >= CACHED_REVISIONS) cache.delete(cache.keys().next().value as string);
    cache.set(key, configuration);
    return configuration;
  };
  return {
    current: (tenantId) => {
      const out = new Map<string, RevisedConfiguration>();
      for (const { id, revision } of liveCredentialConfigurationRevisions(db, tenantId)) {
        const configuration = revisionOf(tenantId, id, revision);
        if (configuration) out.set(configuration.id, { configuration, revision });
      }
      return out;
    },
    atRevision: (tenantId, configurationId, revision) => revisionOf(tenantId, configurationResourceId(tenantId, configurationId), revision),
  };
};
