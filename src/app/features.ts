// Every feature of the service, in the order their routers are mounted. The trusted lists are
// held once here: verification resolves credential issuers with them, issuance wallet providers.
import type { Feature, ServiceContext } from '../featureContract.js';
import { tenancyFeature } from '../tenancy/routes.js';
import { verificationFeature } from '../verification/feature.js';
import { callbacksFeature } from '../callbacks/feature.js';
import { issuanceFeature } from '../issuance/feature.js';
import { resourcesFeature } from '../resources/feature.js';
import { trustListsFeature, trustListsFromConfig } from '../trust/trustResolution.js';
import { consoleFeature } from '../console/feature.js';

export const features = async (context: ServiceContext): Promise<readonly Feature[]> => {
  const { metrics } = context;
  const trustLists = await trustListsFromConfig(context.config, context.store, context.log, (source, outcome) => metrics.trustLists.fetches.inc({ source, outcome }));
  const built = [
    tenancyFeature(context),
    trustListsFeature(trustLists),
    await verificationFeature(context, trustLists),
    await callbacksFeature(context),
    await issuanceFeature(context, trustLists),
    await resourcesFeature(context),
  ];
  return [...built, consoleFeature(context, { trustLists: trustLists?.lists, certificates: built.flatMap((f) => f.certificates ?? []) })];
};
