// Every read model the service maintains, in the order the runner applies them.
import { apiKeysProjection } from './apiKeys.js';
import { presentationsProjection } from './presentations.js';
import type { Projection } from './projection.js';
import { tenantsProjection } from './tenants.js';

export const allProjections: readonly Projection[] = [tenantsProjection, apiKeysProjection, presentationsProjection];
