// A tenant's own credential configurations (credential-configuration resources, issue 38): the
// port the issuance steps read them through; the resources feature keeps them.
import type { CredentialConfiguration } from './configurations.js';

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
