// The erasure of a tenant's data, for a DELETION support request (GDPR article 17). Each step is
// its own function; each can run again (a re-run after a crash finishes the work), and none
// touches another tenant:
//   1. revokeTenantApiKeys: every route then answers 401 to the tenant's keys;
//   2. destroyTenantDataKeys: the data keys of everything personal the tenant's resources and
//      flows sealed (drafts' values, DIDComm recipients, credential offers' claims, presentation
//      sessions' disclosed claims, export archives, which are also deleted);
//   3. destroyTenantSigningKeys: the tenant's own signing keys (signing-key resources): a
//      file-store key's data key, a token key's objects in the token;
//   4. destroyTenantBlobContent: the content of its credentials, files and presentations, and its
//      unused uploads: every blob of the tenant discarded, its data key destroyed and its sealed
//      file removed (eraseTenantBlobs, src/resources/blobSweeper.ts). Each upload is a blob of its
//      own with its own key, so content another tenant uploaded too is another blob, not touched.
// The events stay: every stream still replays, the envelopes keep what describes a resource
// (types, dates, digests), and what they sealed opens no more. The support requests' messages
// are kept (their own keys): the record that the tenant asked, and what was done, stays with the
// operator.
import { randomUUID } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { listApiKeys } from '../../projections/apiKeys.js';
import { listTenantOffers } from '../../projections/offers.js';
import { listTenantPresentationSessions } from '../../projections/presentations.js';
import { findTenantResources } from '../../projections/resources.js';
import { listSupportRequests } from '../../projections/supportRequests.js';
import { didcommKeyOwner, DIDCOMM_KIND } from '../../streams/didcommMessage.js';
import { SIGNING_KEY_KIND, signingKey, signingKeyStream } from '../../streams/signingKey.js';
import { handleCommand } from '../eventstore/handle.js';
import type { TenantKeyStore } from '../crypto/tenantKeys.js';
import { DRAFT_KIND, draftKeyOwner } from '../../streams/draft.js';
import { supportExportKeyOwner, type ErasureSummary } from '../../streams/supportRequest.js';
import type { EventMetadata } from '../eventstore/handle.js';
import type { Sqlite } from '../sqlite/connection.js';
import { deleteApiKey } from '../tenancy/commands.js';
import type { BlobContentDeps } from './blobContent.js';
import { eraseTenantBlobs } from './blobSweeper.js';
import type { ExportArchives } from './exportArchives.js';

export interface ErasureDeps extends BlobContentDeps {
  /** The key store's tenant keys: destroys them. */
  readonly tenantKeys: Pick<TenantKeyStore, 'destroy'>;
  /** Read models caught up with the store. */
  readonly db: Sqlite;
  readonly archives: Pick<ExportArchives, 'remove'>;
  readonly metadata: EventMetadata;
  readonly now: () => Date;
}

/** Revokes every live API key of the tenant; how many. */
export const revokeTenantApiKeys = async (deps: ErasureDeps, tenantId: string): Promise<number> => {
  let revoked = 0;
  for (const key of listApiKeys(deps.db, { tenantId })) {
    if (key.revoked_at !== null) continue;
    const result = await deleteApiKey(deps.store, key.api_key_id, deps.metadata);
    if (result._tag === 'Left') {
      // Revoked since the read model saw it: done already.
      if (result.left.kind === 'domain' && result.left.error._tag === 'Conflict') continue;
      throw new Error(`api key not revoked: ${result.left.error._tag}`);
    }
    revoked++;
  }
  return revoked;
};

/** Destroys the data keys of everything the tenant's resources and flows sealed, and deletes its export archives; how many owners. */
export const destroyTenantDataKeys = async (deps: ErasureDeps, tenantId: string): Promise<number> => {
  const owners: string[] = [];
  for (const resource of findTenantResources(deps.db, tenantId)) {
    if (resource.kind.name === DRAFT_KIND.name) owners.push(draftKeyOwner(resource.id));
    if (resource.kind.name === DIDCOMM_KIND.name) owners.push(didcommKeyOwner(resource.id));
  }
  // Credential offers' claims and presentation sessions' disclosures: each flow's key is named by its id.
  for (const offer of listTenantOffers(deps.db, tenantId)) owners.push(offer.offer_id);
  for (const session of listTenantPresentationSessions(deps.db, tenantId)) owners.push(session.state);
  for (const request of listSupportRequests(deps.db, { tenantId })) {
    if (request.export === null) continue;
    owners.push(supportExportKeyOwner(request.requestId));
    await deps.archives.remove(request.requestId);
  }
  for (const owner of owners) await deps.dataKeys.destroy(owner);
  return owners.length;
};

/**
 * Destroys every signing key of the tenant: records it destroyed (so no process signs with it
 * again), then destroys its material (its data key, or its token objects); how many keys.
 */
export const destroyTenantSigningKeys = async (deps: Pick<ErasureDeps, 'db' | 'store' | 'metadata' | 'tenantKeys' | 'dataKeys' | 'now'>, tenantId: string): Promise<number> => {
  const keys = findTenantResources(deps.db, tenantId).filter((resource) => resource.kind.name === SIGNING_KEY_KIND.name);
  for (const key of keys) {
    const destroy = { type: 'DestroySigningKey', data: { tenantId, id: key.id, at: deps.now().toISOString() } } as const;
    const recorded = await handleCommand(deps.store, signingKey, signingKeyStream(key.id), destroy, { commandId: randomUUID(), metadata: deps.metadata });
    if (isLeft(recorded)) throw new Error(`signing key ${key.id} not recorded destroyed: ${recorded.left.error._tag}`);
    const label = key.data['token_label'];
    await deps.tenantKeys.destroy(key.id, key.data['key_store'] === 'pkcs11' && typeof label === 'string' ? { store: 'pkcs11', label } : { store: 'file' }, deps.dataKeys);
  }
  return keys.length;
};

/** Erases the content of the tenant's credentials, files and presentations, and its uploads; how many blob files were removed. */
export const destroyTenantBlobContent = (deps: ErasureDeps, tenantId: string): Promise<number> => eraseTenantBlobs(deps, tenantId);

/** Every step, keys first so that nothing more is done with them while the rest is erased. */
export const eraseTenantData = async (deps: ErasureDeps, tenantId: string): Promise<ErasureSummary> => {
  const apiKeys = await revokeTenantApiKeys(deps, tenantId);
  // A signing key's material counts with the data keys: a file-store key is one.
  const dataKeys = (await destroyTenantDataKeys(deps, tenantId)) + (await destroyTenantSigningKeys(deps, tenantId));
  const blobs = await destroyTenantBlobContent(deps, tenantId);
  return { resources: findTenantResources(deps.db, tenantId).length, dataKeys, blobs, apiKeys };
};
