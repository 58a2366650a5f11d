// The platform resource API (the resource API specification) on the management listener.
import Router from '@koa/router';
import type { Feature, ServiceContext } from '../featureContract.js';
import { apiKeyRoutes } from './apiKeys.js';
import { blobDirectory, sealedBlobStore } from '../blobStore.js';
import { credentialRoutes } from './credentials.js';
import { credentialConfigurationRoutes } from './credentialConfigurations.js';
import { didcommRoutes } from './didcommMessages.js';
import { draftRoutes } from './drafts.js';
import { fileRoutes } from './files.js';
import { requireKnownApiLine } from './oasVersion.js';
import { presentationRoutes } from './presentations.js';
import { rateLimit } from './rateLimit.js';
import { schemaRoutes } from './schemas.js';
import { signingKeyRoutes } from './signingKeys.js';
import { supportRequestRoutes } from './supportRequests.js';
import { tenantDidRoutes } from './tenantDid.js';
import { settingsRoutes } from './tenantSettings.js';
import { verifierRoutes } from './tenantVerifier.js';
import { uploads } from './uploads.js';
import type { ResourcesContext } from './context.js';
import { idempotentWrites } from './idempotentWrites.js';
import { startReplyExpiry } from './replyExpiry.js';
import { startPeriodic, type Periodic } from '../periodic.js';
import { startBlobSweeper } from './blobSweeper.js';
import { sealClearBlobs } from './clearBlobSealing.js';
import { exportArchives, exportDirectory } from './exportArchives.js';
import { expireExports } from './supportWork.js';

/**
 * The ports the feature uses: `kek` is the derivation root of upload secrets and the tenants' DID
 * keys; `keys` makes tenants' signing keys.
 */
export type ResourcesPorts = Pick<ServiceContext, 'config' | 'log' | 'metrics' | 'store' | 'runner' | 'dataKeys' | 'kek' | 'keys'>;

export const resourcesFeature = async (service: ResourcesPorts): Promise<Feature> => {
  const now = (): Date => new Date();
  const { config, log, store, runner, dataKeys } = service;
  const idempotent = idempotentWrites({ store, dataKeys, log, keyLifetimeSeconds: config.idempotencyKeyTtlSeconds, now });
  const deps: ResourcesContext = { config, log, store, runner, dataKeys, now, idempotent };
  const blobDir = blobDirectory(service.config);
  const blobs = await sealedBlobStore(blobDir);
  const content = { store: service.store, dataKeys: service.dataKeys, blobs };
  await sealClearBlobs({ ...content, blobDir, log: service.log, now });
  const blobUploads = uploads(deps, service.kek, blobs);
  const router = new Router();
  router.use(rateLimit(service.config.resourceRateLimit, service.config.resourceRateWindowSeconds, now), requireKnownApiLine);
  apiKeyRoutes(router, deps);
  fileRoutes(router, deps, blobUploads, content);
  credentialRoutes(router, deps, blobUploads, content);
  presentationRoutes(router, deps, content);
  const publishedSchemas = schemaRoutes(router, deps);
  draftRoutes(router, deps);
  const archives = exportArchives(exportDirectory(blobDir));
  supportRequestRoutes(router, deps, archives);
  didcommRoutes(router, deps);
  credentialConfigurationRoutes(router, deps);
  signingKeyRoutes(router, deps, service.keys);
  const didDocuments = tenantDidRoutes(router, deps, service.kek);
  settingsRoutes(router, deps, service.kek);
  verifierRoutes(router, deps);
  let replyExpiry: Periodic | undefined;
  let sweeper: Periodic | undefined;
  let exportExpiry: Periodic | undefined;
  return {
    name: 'resources',
    managementRouters: [router],
    publicRouters: [blobUploads.publicRouter, publishedSchemas, didDocuments],
    start: () => {
      replyExpiry = startReplyExpiry(deps);
      sweeper = startBlobSweeper({ ...content, metrics: service.metrics, restoreWindowSeconds: service.config.restoreWindowSeconds, now }, service.config.blobSweepIntervalMs, service.log);
      exportExpiry = startPeriodic('support export expiry', service.config.supportExportExpiryIntervalMs, () =>
        expireExports({ store: deps.store, dataKeys: deps.dataKeys, db: deps.runner.db, archives, now, metadata: { actor: 'service' } }), deps.log);
    },
    stop: async () => {
      await replyExpiry?.stop();
      await sweeper?.stop();
      await exportExpiry?.stop();
    },
  };
};
