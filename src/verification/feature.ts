// The verification feature (OpenID4VP): its routes on both listeners and the expiry scheduler.
// It takes from the service only the ports it uses (`VerificationPorts`), and hands each step
// only its own part of them: the key store's signing identity, never its key-encryption key,
// which stays inside the data-key module (`dataKeys`). Each tenant's verifier (its own access key
// and registration, else the deployment's) is resolved through verifiers.ts.
import { configVariableNames, type Config } from '../config/config.js';
import { hostSubjectAltName, x509HashClientId } from '../crypto/certificates.js';
import type { KeyStore } from '../crypto/keyStore.js';
import type { Feature, ServiceContext } from '../featureContract.js';
import type { Periodic } from '../periodic.js';
import { createCredentialStatusChecker, statusListClientFromConfig } from './status/statusCheck.js';
import { tenantPresentationVerifier } from './tenantVerifiers.js';
import { trustResolutionFromConfig, type HeldLists } from '../trust/trustResolution.js';
import type { ExpiryBounds } from './createRequest/body.js';
import { startPresentationExpiry } from './expiry.js';
import type { Verifier } from './authorizationRequest.js';
import { managementRouter, publicRouter } from './routes.js';
import { createPresentationVerifier } from './formats/registry.js';
import { tenantVerifiers } from './verifiers.js';

/** What the verification feature uses of the service. */
export type VerificationPorts = Pick<ServiceContext, 'config' | 'log' | 'metrics' | 'store' | 'dataKeys' | 'tenantKeys' | 'verifierRegistrations' | 'tenantSettings'> & {
  readonly runner: Pick<ServiceContext['runner'], 'db'>;
  readonly keys: Pick<KeyStore, 'signingIdentity'>;
};

const expiryBounds = (config: Config): ExpiryBounds => {
  const { presentationExpiresIn: defaultSeconds, presentationExpiresInMin: minSeconds, presentationExpiresInMax: maxSeconds } = config;
  if (!(minSeconds <= defaultSeconds && defaultSeconds <= maxSeconds)) {
    throw new Error(
      `${configVariableNames.presentationExpiresIn} (${defaultSeconds}) must lie between ` +
        `${configVariableNames.presentationExpiresInMin} (${minSeconds}) and ${configVariableNames.presentationExpiresInMax} (${maxSeconds})`,
    );
  }
  return { defaultSeconds, minSeconds, maxSeconds };
};

/** The deployment's relying party as wallets see it: the access certificate and the client id derived from it. */
export const loadVerifier = async (context: Pick<VerificationPorts, 'config' | 'keys' | 'log'>): Promise<Verifier> => {
  const { config } = context;
  const identity = await context.keys.signingIdentity('access', {
    name: 'access',
    certificateVariable: configVariableNames.accessCertificateFile,
    keyVariable: configVariableNames.accessKeyFile,
    certificateFile: config.accessCertificateFile,
    keyFile: config.accessKeyFile,
    dataDir: config.dataDir,
    commonName: `${new URL(config.publicUrl).hostname} access certificate (development)`,
    subjectAltNames: [hostSubjectAltName(config.publicUrl)],
    log: context.log,
  });
  const leaf = identity.chain[0];
  if (leaf === undefined) throw new Error('the access certificate chain is empty');
  return { identity, clientId: x509HashClientId(leaf), publicUrl: config.publicUrl };
};

export const verificationFeature = async (context: VerificationPorts, trustLists: HeldLists | undefined): Promise<Feature> => {
  const bounds = expiryBounds(context.config);
  const { metrics } = context;
  const trust = trustResolutionFromConfig(context.config, trustLists);
  // One status list client (fetches, cache) for the deployment; each tenant's policy over it.
  const statusLists = statusListClientFromConfig(context.config, trust.verifier, (outcome) => metrics.statusLists.fetches.inc({ outcome }));
  const verify = tenantPresentationVerifier({
    settings: context.tenantSettings,
    config: context.config,
    build: (config) => {
      const resolution = config === context.config ? trust : trustResolutionFromConfig(config, trustLists);
      return createPresentationVerifier(resolution.verifier, createCredentialStatusChecker({ policy: config.statusListFailurePolicy, client: statusLists }), context.log);
    },
  });
  const verifiers = tenantVerifiers(await loadVerifier(context), context);
  const deps = {
    store: context.store,
    dataKeys: context.dataKeys,
    verifiers,
    verify,
    bounds,
    settingsOf: (tenantId: string) => context.tenantSettings.of(tenantId),
    log: context.log,
    trustListUrls: trust.trustListUrls,
  };
  let expiry: Periodic | undefined;
  const leaf = verifiers.deployment.identity.chain[0]!;
  return {
    name: 'verification',
    certificates: [{ role: 'access', subject: leaf.subject, notAfter: leaf.notAfter }],
    managementRouters: [managementRouter(deps)],
    publicRouters: [publicRouter(deps)],
    start() {
      expiry = startPresentationExpiry(
        { store: context.store, dataKeys: context.dataKeys, readModels: context.runner.db, log: context.log },
        context.config.presentationExpiryIntervalMs,
      );
    },
    async stop() {
      await expiry?.stop();
    },
  };
};
