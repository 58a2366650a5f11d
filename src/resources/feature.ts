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
import { rateLimit } from './rateLimit.js';
import { schemaRoutes } from './schemas.js';
import { supportRequestRoutes } from './supportRequests.js';
import { tenantDidRoutes } from './tenantDid.js';
import { uploads } from './uploads.js';
import type { ResourcesContext } from './context.js';
import { idempotentWrites } from './idempotency.js';
import { startReplyExpiry } from './replyExpiry.js';
import type { Periodic } from '../periodic.js';

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
  const publishedSchemas = schemaRoutes(router, deps);
  draftRoutes(router, deps);
  supportRequestRoutes(router, deps);
  didcommRoutes(router, deps);
  const didDocuments = tenantDidRoutes(router, deps, service.kek);
  let replyExpiry: Periodic | undefined;
  return {
    name: 'resources',
    managementRouters: [router],
    publicRouters: [blobUploads.publicRouter, publishedSchemas, didDocuments],
    start: () => {
      replyExpiry = startReplyExpiry(deps);
    },
    stop: async () => {
      await replyExpiry?.stop();
    },
  };
};
