// Every feature of the service, in the order their routers are mounted.
import type { Feature, ServiceContext } from '../featureContract.js';
import { tenancyFeature } from '../tenancy/routes.js';
import { verificationFeature } from '../verification/feature.js';
import { callbacksFeature } from '../callbacks/feature.js';
import { issuanceFeature } from '../issuance/feature.js';
import { resourcesFeature } from '../resources/feature.js';

export const features = async (context: ServiceContext): Promise<readonly Feature[]> => [tenancyFeature(context), await verificationFeature(context), await callbacksFeature(context), await issuanceFeature(context), await resourcesFeature(context)];
