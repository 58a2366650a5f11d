// Every read model the service maintains, in the order the runner applies them.
import { deliveriesProjection } from './deliveries.js';
import { tenantCallbacksProjection } from './tenantCallbacks.js';
import { apiKeysProjection } from './apiKeys.js';
import { idempotentRepliesProjection } from './idempotentReplies.js';
import { offersProjection } from './offers.js';
import { presentationsProjection } from './presentations.js';
import { resourcesProjection } from './resources.js';
import { statusListsProjection } from './statusLists.js';
import type { Projection } from './projection.js';
import { tenantsProjection } from './tenants.js';
import { supportRequestsProjection } from './supportRequests.js';

export const allProjections: readonly Projection[] = [tenantsProjection, apiKeysProjection, presentationsProjection, deliveriesProjection, tenantCallbacksProjection, offersProjection, statusListsProjection, resourcesProjection, idempotentRepliesProjection, supportRequestsProjection];
