// The platform resource API (the resource API specification) on the management listener.
import Router from '@koa/router';
import type { Feature, ServiceContext } from '../featureContract.js';
import { apiKeyRoutes } from './apiKeys.js';
import { blobDirectory, directoryBlobStore } from '../blobStore.js';
import { credentialRoutes } from './credentials.js';
import { didcommRoutes } from './didcommMessages.js';
import { draftRoutes } from './drafts.js';
import { fileRoutes } from './files.js';
import { requireKnownApiLine } from './oasVersion.js';
import { presentationRoutes } from './presentations.js';
import { rateLimit } from './rateLimit.js';
import { schemaRoutes } from './schemas.js';
import { supportRequestRoutes } from './supportRequests.js';
import { tenantDidRoutes } from './tenantDid.js';
import { uploads } from './uploads.js';
import type { ResourcesContext } from './context.js';
import { idempotentWrites } from './idempotency.js';
import { startReplyExpiry } from './replyExpiry.js';
import { startPeriodic, type Periodic } from '../periodic.js';
import { exportArchives, exportDirectory } from './exportArchives.js';
import { expireExports } from './supportWork.js';

export const resourcesFeature = async (service: ServiceContext): Promise<Feature> => {
  const now = (): Date => new Date();
  const deps: ResourcesContext = { ...service, now, idempotent: idempotentWrites(service, now) };
  const blobs = await directoryBlobStore(blobDirectory(service.config));
  const blobUploads = uploads(deps, service.kek, blobs);
  const router = new Router();
  router.use(rateLimit(service.config.resourceRateLimit, service.config.resourceRateWindowSeconds, now), requireKnownApiLine);
  apiKeyRoutes(router, deps);
  fileRoutes(router, deps, blobUploads, blobs);
  credentialRoutes(router, deps, blobUploads, blobs);
  presentationRoutes(router, deps, blobs);
  const publishedSchemas = schemaRoutes(router, deps);
  draftRoutes(router, deps);
  const archives = exportArchives(exportDirectory(blobDirectory(service.config)));
  supportRequestRoutes(router, deps, archives);
  didcommRoutes(router, deps);
  const didDocuments = tenantDidRoutes(router, deps, service.kek);
  let replyExpiry: Periodic | undefined;
  let exportExpiry: Periodic | undefined;
  return {
    name: 'resources',
    managementRouters: [router],
    publicRouters: [blobUploads.publicRouter, publishedSchemas, didDocuments],
    start: () => {
      replyExpiry = startReplyExpiry(deps);
      exportExpiry = startPeriodic('support export expiry', service.config.supportExportExpiryIntervalMs, () =>
        expireExports({ store: deps.store, dataKeys: deps.dataKeys, db: deps.runner.db, archives, now, metadata: { actor: 'service' } }), deps.log);
    },
    stop: async () => {
      await replyExpiry?.stop();
      await exportExpiry?.stop();
    },
  };
};
