// Issuance (OpenID4VCI, pre-authorized code and authorization code flows): the management routes for offers and their
// credential status, the wallet-facing protocol routes, the served Status List Tokens, and the
// offer expiry scheduler.
import Router from '@koa/router';
import { configVariableNames } from '../config/config.js';
import { describeSubjectAltName, hostSubjectAltName, namesIssuer, subjectAltNamesOf } from '../crypto/certificates.js';
import { type SigningIdentity } from '../crypto/signingIdentity.js';
import type { Logger } from '../log.js';
import type { Feature, ServiceContext } from '../featureContract.js';
import type { Periodic } from '../periodic.js';
import { trustAnchorCertificates } from '../trust/trustAnchors.js';
import type { HeldLists } from '../trust/trustResolution.js';
import { walletProviderTrust } from '../trust/walletProviderTrust.js';
import { createStatusAllocator } from './status/allocation.js';
import { credentialStatusRouter } from './status/credentialStatusRoutes.js';
import { statusListRouter } from './status/publicationRoute.js';
import { loadCredentialConfigurations } from './configurations.js';
import { credentialFormats } from './formats/registry.js';
import { PATHS, TENANT_ISSUER_PREFIX, type IssuanceContext } from './context.js';
import { deploymentIssuer, issuers } from './issuer.js';
import { atDeployment, atTenant } from './issuerRoutes.js';
import { tenantConfigurations, type TenantConfigurations } from './tenantConfigurations.js';
import { authorizationsRouter } from './authorizationAnswer/routes.js';
import { authorizeEndpoint } from './authorization/route.js';
import { credentialEndpoint } from './credential/route.js';
import { parEndpoint } from './pushedAuthorization/route.js';
import { credentialOfferEndpoint } from './offer/credentialOfferRoute.js';
import { offersRouter } from './offer/routes.js';
import { startOfferExpiry } from './expiry.js';
import { metadataRoutes } from './metadata/routes.js';
import { nonceEndpoint } from './nonce/route.js';
import { oauthErrors } from '../http/oauthError.js';
import { issuanceSecrets } from './secrets.js';
import { tokenEndpoint } from './token/route.js';
import { walletPolicies } from './walletPolicy.js';

/**
 * The wallet-facing routes: the deployment's issuer at today's paths, and each tenant's own under
 * its identifier's path (`/issuers/{tenant_id}`), its metadata also at the well-known URLs with the
 * path inserted (OpenID4VCI 1.0 section 12.2.2, RFC 8414 section 3.1). The same steps serve both:
 * each reads the issuer its route resolved (./issuerRoutes.ts).
 */
const walletRouter = (issuance: IssuanceContext): Router => {
  const metadata = metadataRoutes(issuance);
  const router = new Router();
  const { log } = issuance;
  const deployment = atDeployment(issuance.issuers);
  const tenant = atTenant(issuance.issuers);
  const routes = (prefix: string, issuer: typeof deployment) => {
    router.get(`${prefix}${PATHS.issuerMetadata}`, oauthErrors(log), issuer, metadata.issuer);
    router.get(`${prefix}${PATHS.authorizationServerMetadata}`, oauthErrors(log), issuer, metadata.authorizationServer);
    router.get(`${prefix}${PATHS.typeMetadata}`, oauthErrors(log), issuer, metadata.type);
    router.get(`${prefix}${PATHS.offer}`, oauthErrors(log), issuer, credentialOfferEndpoint(issuance));
    router.post(`${prefix}${PATHS.par}`, oauthErrors(log, 'invalid_request'), issuer, parEndpoint(issuance));
    router.get(`${prefix}${PATHS.authorize}`, oauthErrors(log, 'invalid_request'), issuer, authorizeEndpoint(issuance));
    router.post(`${prefix}${PATHS.token}`, oauthErrors(log, 'invalid_request'), issuer, tokenEndpoint(issuance));
    router.post(`${prefix}${PATHS.nonce}`, oauthErrors(log), issuer, nonceEndpoint(issuance.secrets, issuance.config.cNonceTtlSeconds));
    router.post(`${prefix}${PATHS.credential}`, oauthErrors(log, 'invalid_credential_request'), issuer, credentialEndpoint(issuance));
  };
  routes('', deployment);
  routes(TENANT_ISSUER_PREFIX, tenant);
  // The well-known segment inserted between host and the identifier's path.
  router.get(`${PATHS.issuerMetadata}${TENANT_ISSUER_PREFIX}`, oauthErrors(log), tenant, metadata.issuer);
  router.get(`${PATHS.authorizationServerMetadata}${TENANT_ISSUER_PREFIX}`, oauthErrors(log), tenant, metadata.authorizationServer);
  return router;
};

/**
 * Wallets resolve the issuer's key from `x5c` only when the leaf names `iss` (the credential issuer
 * identifier, PUBLIC_URL): the development leaf always does; a configured one that does not is
 * allowed (a deployment may know its wallets) but said loudly at start.
 */
const warnUnlessLeafNamesIssuer = (identity: SigningIdentity, issuer: string, log: Logger): void => {
  const leaf = identity.chain[0];
  if (leaf === undefined || namesIssuer(leaf, issuer)) return;
  log.warn(
    `${configVariableNames.issuerCertificateFile}: the leaf certificate has no subjectAltName naming the issuer identifier ` +
      `(a URI equal to ${configVariableNames.publicUrl}, or a DNS name equal to its host); wallets that check iss against x5c will reject its credentials`,
    { issuer, subjectAltNames: subjectAltNamesOf(leaf).map(describeSubjectAltName) },
  );
};

/**
 * Loads the credential configurations and the Issuer Signing Certificate; a bad one stops the start.
 * `trustLists`: the service's trusted lists (lotl mode), where wallet providers may be listed.
 * `testConfigurations`: tenants' configurations a test builds (startService's seam), instead of the
 * credential-configuration resources.
 */
export const issuanceFeature = async (
  service: ServiceContext,
  trustLists: HeldLists | undefined,
  testConfigurations?: TenantConfigurations,
): Promise<Feature> => {
  const { config } = service;
  const ofTenants = testConfigurations ?? tenantConfigurations(service.runner.db);
  const configurations = await loadCredentialConfigurations(config.credentialConfigurationsFile);
  const identity = await service.keys.signingIdentity('issuer', {
    name: 'issuer',
    certificateVariable: configVariableNames.issuerCertificateFile,
    keyVariable: configVariableNames.issuerKeyFile,
    certificateFile: config.issuerCertificateFile,
    keyFile: config.issuerKeyFile,
    dataDir: config.dataDir,
    commonName: 'Connector issuer (development)',
    // The credential issuer identifier is `iss` of every credential: wallets match it against these.
    subjectAltNames: [hostSubjectAltName(config.publicUrl), { type: 'url', value: config.publicUrl }],
    log: service.log,
  });
  if (config.issuerCertificateFile !== undefined) warnUnlessLeafNamesIssuer(identity, config.publicUrl, service.log);
  // Each port named: the key-encryption key's derivation root reaches only the MAC secrets, the
  // key store only the signing identity above, and each step takes what it uses of the rest.
  const walletProviders = walletProviderTrust(trustAnchorCertificates(config.walletProviderTrustAnchors), trustLists?.lists);
  const issuance: IssuanceContext = {
    config,
    log: service.log,
    store: service.store,
    runner: service.runner,
    dataKeys: service.dataKeys,
    secrets: issuanceSecrets(service.kek),
    tenantConfigurations: ofTenants,
    issuers: issuers({
      publicUrl: config.publicUrl,
      deployment: deploymentIssuer(config.publicUrl, identity, new Map(configurations.map((c) => [c.id, c]))),
      tenantKeys: service.tenantKeys,
      tenantConfigurations: ofTenants,
    }),
    settings: service.tenantSettings,
    formats: credentialFormats,
    walletProviders,
    walletPolicyOf: walletPolicies({ db: () => service.runner.db, settings: service.tenantSettings, config, lists: trustLists?.lists, walletProviders }),
    statusAllocator: createStatusAllocator({ store: service.store, db: service.runner.db, listSize: config.statusListSize }),
    now: () => new Date(),
  };
  if (config.statusListValiditySeconds <= config.statusListTtlSeconds) {
    throw new Error(
      `${configVariableNames.statusListValiditySeconds} (${config.statusListValiditySeconds}) must exceed ${configVariableNames.statusListTtlSeconds} (${config.statusListTtlSeconds})`,
    );
  }
  const statusLists = statusListRouter(
    { db: service.runner.db, ttlSeconds: config.statusListTtlSeconds, validitySeconds: config.statusListValiditySeconds, now: issuance.now },
    issuance.issuers,
  );
  let expiry: Periodic | undefined;
  const leaf = identity.chain[0];
  return {
    name: 'issuance',
    ...(leaf ? { certificates: [{ role: 'issuer', subject: leaf.subject, notAfter: leaf.notAfter }] } : {}),
    managementRouters: [offersRouter(issuance), authorizationsRouter(issuance), credentialStatusRouter(issuance)],
    publicRouters: [walletRouter(issuance), statusLists],
    start: () => {
      expiry = startOfferExpiry(issuance);
    },
    stop: async () => {
      await expiry?.stop();
    },
  };
};
