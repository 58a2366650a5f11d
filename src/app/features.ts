// Every feature of the service, in the order their routers are mounted. The trusted lists are
// held once here: verification resolves credential issuers with them, issuance wallet providers.
import type { Feature, ServiceContext } from '../featureContract.js';
import { tenancyFeature } from '../tenancy/routes.js';
import { verificationFeature } from '../verification/feature.js';
import { callbacksFeature } from '../callbacks/feature.js';
import { issuanceFeature } from '../issuance/feature.js';
import type { TenantConfigurations } from '../issuance/tenantConfigurations.js';
import type { TenantSigningKeys } from '../tenantIdentity/ports.js';
import { resourcesFeature } from '../resources/feature.js';
import { trustListsFeature, trustListsFromConfig } from '../trust/trustResolution.js';
import { consoleFeature } from '../console/feature.js';

/** A test's own tenant keys and configurations (startService's test seam); the service's own otherwise. */
export interface TenantIdentity {
  readonly keys?: TenantSigningKeys;
  readonly configurations?: TenantConfigurations;
}

export const features = async (context: ServiceContext, tenantIdentity?: TenantIdentity): Promise<readonly Feature[]> => {
  const { metrics } = context;
  const trustLists = await trustListsFromConfig(context.config, context.store, context.log, (source, outcome) => metrics.trustLists.fetches.inc({ source, outcome }));
  const built = [
    tenancyFeature(context),
    trustListsFeature(trustLists),
    await verificationFeature(context, trustLists),
    await callbacksFeature(context),
    await issuanceFeature(context, trustLists, tenantIdentity?.configurations),
    await resourcesFeature(context),
  ];
  return [...built, consoleFeature(context, { trustLists: trustLists?.lists, certificates: built.flatMap((f) => f.certificates ?? []) })];
};
