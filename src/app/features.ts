// Every feature of the service, in the order their routers are mounted. The trusted lists are
// held once here: verification resolves credential issuers with them, issuance wallet providers.
import type { Feature, ServiceContext } from '../featureContract.js';
import { tenancyFeature } from '../tenancy/routes.js';
import { verificationFeature } from '../verification/feature.js';
import { callbacksFeature } from '../callbacks/feature.js';
import { issuanceFeature } from '../issuance/feature.js';
import type { TenantConfigurations } from '../issuance/tenantConfigurations.js';
import { resourcesFeature } from '../resources/feature.js';
import { trustListsFeature, trustListsFromConfig } from '../trust/trustResolution.js';
import { consoleFeature } from '../console/feature.js';

/**
 * A test seam (startService's `tenantIdentity`): tenants' signing keys, verifier registrations and
 * credential configurations built by a test, read through the same ports the service's own
 * resources fill; the service's own where absent. Never set by the service's entry points.
 */
export interface TenantIdentityPorts extends Partial<Pick<ServiceContext, 'tenantKeys' | 'verifierRegistrations'>> {
  readonly tenantConfigurations?: TenantConfigurations;
}

export const features = async (context: ServiceContext, tenantIdentity?: TenantIdentityPorts): Promise<readonly Feature[]> => {
  const { metrics } = context;
  const trustLists = await trustListsFromConfig(context.config, context.store, context.log, (source, outcome) => metrics.trustLists.fetches.inc({ source, outcome }));
  const built = [
    tenancyFeature(context),
    trustListsFeature(trustLists),
    await verificationFeature(context, trustLists),
    await callbacksFeature(context),
    await issuanceFeature(context, trustLists, tenantIdentity?.tenantConfigurations),
    await resourcesFeature(context),
  ];
  return [...built, consoleFeature(context, { trustLists: trustLists?.lists, certificates: built.flatMap((f) => f.certificates ?? []) })];
};
