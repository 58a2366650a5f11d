// Issuance (OpenID4VCI, pre-authorized code and authorization code flows): the management routes for offers and their
// credential status, the wallet-facing protocol routes, the served Status List Tokens, and the
// offer expiry scheduler.
import Router from '@koa/router';
import { configVariableNames } from '../config.js';
import { describeSubjectAltName, hostSubjectAltName, loadSigningIdentity, namesIssuer, subjectAltNamesOf, type SigningIdentity } from '../crypto/certificates.js';
import type { Logger } from '../log.js';
import type { Feature, ServiceContext } from '../feature.js';
import type { Periodic } from '../periodic.js';
import { createStatusAllocator } from '../status/allocation.js';
import { credentialStatusRouter } from '../status/credentialStatusRoutes.js';
import { statusListRouter } from '../status/publication.js';
import { trustAnchorCertificates } from '../trust/trustAnchors.js';
import { loadCredentialConfigurations } from './configurations.js';
import { PATHS, type IssuanceContext } from './context.js';
import { authorizationsRouter } from './authorizations.js';
import { authorizeEndpoint } from './authorize.js';
import { credentialEndpoint } from './credentialEndpoint.js';
import { parEndpoint } from './par.js';
import { credentialOfferEndpoint } from './credentialOffer.js';
import { offersRouter } from './createOffer.js';
import { startOfferExpiry } from './expiry.js';
import { metadataRoutes } from './metadata.js';
import { nonceEndpoint } from './nonce.js';
import { oauthErrors } from './oauthError.js';
import { issuanceSecrets } from './secrets.js';
import { tokenEndpoint } from './token.js';

const walletRouter = (ctx: IssuanceContext): Router => {
  const metadata = metadataRoutes(ctx);
  const router = new Router();
  router.get(PATHS.issuerMetadata, oauthErrors(ctx.log), metadata.issuer);
  router.get(PATHS.authorizationServerMetadata, oauthErrors(ctx.log), metadata.authorizationServer);
  router.get(PATHS.typeMetadata, oauthErrors(ctx.log), metadata.type);
  router.get(PATHS.offer, oauthErrors(ctx.log), credentialOfferEndpoint(ctx));
  router.post(PATHS.par, oauthErrors(ctx.log, 'invalid_request'), parEndpoint(ctx));
  router.get(PATHS.authorize, oauthErrors(ctx.log, 'invalid_request'), authorizeEndpoint(ctx));
  router.post(PATHS.token, oauthErrors(ctx.log, 'invalid_request'), tokenEndpoint(ctx));
  router.post(PATHS.nonce, oauthErrors(ctx.log), nonceEndpoint(ctx.secrets, ctx.config.cNonceTtlSeconds));
  router.post(PATHS.credential, oauthErrors(ctx.log, 'invalid_credential_request'), credentialEndpoint(ctx));
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

/** Loads the credential configurations and the Issuer Signing Certificate; a bad one stops the start. */
export const issuanceFeature = async (service: ServiceContext): Promise<Feature> => {
  const { config } = service;
  const configurations = await loadCredentialConfigurations(config.credentialConfigurationsFile);
  const identity = await loadSigningIdentity({
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
  const ctx: IssuanceContext = {
    ...service,
    secrets: issuanceSecrets(service.kek),
    configurations: new Map(configurations.map((c) => [c.id, c])),
    signingKey: identity,
    walletProviderAnchors: trustAnchorCertificates(config.walletProviderTrustAnchors),
    statusAllocator: createStatusAllocator({ store: service.store, db: service.runner.db, publicUrl: config.publicUrl, listSize: config.statusListSize }),
    now: () => new Date(),
  };
  if (config.statusListValiditySeconds <= config.statusListTtlSeconds) {
    throw new Error(
      `${configVariableNames.statusListValiditySeconds} (${config.statusListValiditySeconds}) must exceed ${configVariableNames.statusListTtlSeconds} (${config.statusListTtlSeconds})`,
    );
  }
  const statusLists = statusListRouter({
    db: service.runner.db,
    signingKey: identity,
    publicUrl: config.publicUrl,
    ttlSeconds: config.statusListTtlSeconds,
    validitySeconds: config.statusListValiditySeconds,
    now: ctx.now,
  });
  let expiry: Periodic | undefined;
  return {
    name: 'issuance',
    managementRouters: [offersRouter(ctx), authorizationsRouter(ctx), credentialStatusRouter(ctx)],
    publicRouters: [walletRouter(ctx), statusLists],
    start: () => {
      expiry = startOfferExpiry(ctx);
    },
    stop: async () => {
      await expiry?.stop();
    },
  };
};
