// The issuance steps' use cases on a real store (SQLite in a temp directory), real data keys,
// real MAC secrets and a real Issuer Signing Certificate, without HTTP: what the step tests
// (test/issuance-*-step.test.ts) call the use cases with.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { rightOf } from './either.js';
import { openRunner, openStore } from './readmodels.js';
import { createTestIssuer } from './credentials.js';
import { PID_CLAIMS } from './wallet/issuanceChecks.js';
import { dpopProof, newWalletKey, type WalletKey } from '../../wallet/keys.js';
import type { Config } from '../../src/config/config.js';
import type { Position } from '../../src/eventstore/port.js';
import type { ProjectionRunner } from '../../src/readside/projectionRunner.js';
import { dataKeys } from '../../src/crypto/dataKeys.js';
import { fileKek } from '../../src/crypto/kek.js';
import { keySigner } from '../../src/crypto/signer.js';
import { silentLogger } from '../../src/log.js';
import { walletProviderTrust } from '../../src/trust/walletProviderTrust.js';
import { trustAnchorCertificates } from '../../src/trust/trustAnchors.js';
import { attestationPop, createWalletProvider, walletAttestation, type WalletProvider } from '../../wallet/walletProvider.js';
import { DEFAULT_CONFIGURATIONS, parseCredentialConfigurations } from '../../src/issuance/configurations.js';
import { endpointUrl, PATHS, PRE_AUTHORIZED_CODE_GRANT } from '../../src/issuance/context.js';
import { createOffer } from '../../src/issuance/offer/createOffer.js';
import { preAuthorizedCode } from '../../src/issuance/codes.js';
import { issueCNonce } from '../../src/issuance/nonce/cNonce.js';
import { credentialFormats } from '../../src/issuance/formats/registry.js';
import { issuanceSecrets } from '../../src/issuance/secrets.js';
import { createStatusAllocator } from '../../src/issuance/status/allocation.js';
import type { CredentialPorts } from '../../src/issuance/credential/issueCredential.js';
import type { TokenPorts } from '../../src/issuance/token/redeemToken.js';
import type { AnswerPorts } from '../../src/issuance/authorizationAnswer/answerAuthorization.js';
import { deploymentIssuer, issuers as issuersOf, type Issuers } from '../../src/issuance/issuer.js';
import { field, type TokenRequest } from '../../src/issuance/token/request.js';

export const PUBLIC_URL = 'https://issuer.example';
export const metadata = { actor: 'test' };

export type StepPorts = CredentialPorts & TokenPorts & AnswerPorts & { readonly issuers: Issuers } & { readonly x5c: readonly string[]; readonly config: { readonly authorizationTtlSeconds: number } };

export interface Offered {
  readonly offerId: string;
  readonly preAuthorizedCode: string;
  readonly txCode: string | undefined;
  /** Where OfferCreated was recorded: the read models have it once they reach it. */
  readonly position: Position;
}

export interface Steps {
  readonly ports: StepPorts;
  /** A pre-authorized offer of the built-in `pid` configuration, created by its use case. */
  offer(options?: { readonly txCode?: boolean; readonly configuration?: string; readonly claims?: unknown }): Promise<Offered>;
  /** A token request of the pre-authorized code grant. */
  preAuthorized(code: string, txCode?: string): TokenRequest;
  /** A DPoP proof of `key` for the token or credential endpoint. */
  dpop(key: WalletKey, path: string, accessToken?: string): Promise<string>;
  /** A key proof of `holder` carrying a fresh c_nonce. */
  keyProof(holder: WalletKey, nonce?: string): Promise<string>;
  /** An authorization-code offer whose users authenticate at https://login.example. */
  authorizationCodeOffer(): Promise<{ readonly offerId: string }>;
  /** The attestation headers of a wallet instance `clientId` of the trusted wallet provider, a fresh PoP each call. */
  attested(clientId: string, instance: WalletKey): Promise<{ readonly attestation: string; readonly attestationPop: string }>;
  readonly walletProvider: WalletProvider;
  /** The read models over the store, running. */
  readonly readModels: ProjectionRunner;
}

export const withSteps = async (body: (steps: Steps) => Promise<void>, options: { readonly txCodeMaxAttempts?: number } = {}): Promise<void> => {
  const dir = await mkdtemp(join(tmpdir(), 'issuance-steps-'));
  const store = await openStore(dir);
  const runner = await openRunner(store, join(dir, 'readmodels.sqlite'));
  runner.start();
  const issuer = await createTestIssuer();
  const secrets = issuanceSecrets(randomBytes(32));
  const provider = await createWalletProvider();
  const deployment = deploymentIssuer(
    PUBLIC_URL,
    { signer: keySigner(issuer.leaf.keys.privateKey), x5c: issuer.x5c },
    new Map(parseCredentialConfigurations(DEFAULT_CONFIGURATIONS, 'built-in').map((c) => [c.id, c])),
  );
  const walletProviders = walletProviderTrust(trustAnchorCertificates([provider.anchor]), undefined);
  const ports: StepPorts = {
    store,
    dataKeys: dataKeys(store, fileKek(randomBytes(32))),
    secrets,
    issuer: deployment,
    issuers: issuersOf({ publicUrl: PUBLIC_URL, deployment, tenantKeys: { active: async () => undefined }, tenantConfigurations: { current: () => new Map(), atRevision: () => undefined } }),
    formats: credentialFormats,
    statusAllocator: createStatusAllocator({ store, db: runner.db, listSize: 1024 }),
    walletProviders,
    walletPolicyOf: () => ({ walletAttestation: 'optional', walletProviders }),
    log: silentLogger,
    now: () => new Date(),
    config: { proofMaxAgeSeconds: 120, credentialValidityDays: 365, txCodeMaxAttempts: options.txCodeMaxAttempts ?? 3, authorizationTtlSeconds: 300 },
    x5c: issuer.x5c,
  };
  const steps: Steps = {
    ports,
    walletProvider: provider,
    readModels: runner,
    async authorizationCodeOffer() {
      const created = rightOf(
        await createOffer(
          { ...ports, offerTtlSeconds: 300 },
          'tenant-1',
          { credential_configuration_id: 'pid', claims: undefined, grant: 'authorization_code', authentication_url: 'https://login.example/authenticate' },
          metadata,
        ),
      );
      return { offerId: created.offerId };
    },
    async attested(clientId, instance) {
      return {
        attestation: await walletAttestation(provider, { clientId, instanceJwk: instance.publicJwk }),
        attestationPop: await attestationPop(instance, { clientId, audience: PUBLIC_URL }),
      };
    },
    async offer(o = {}) {
      const created = rightOf(
        await createOffer(
          { ...ports, offerTtlSeconds: 300 },
          'tenant-1',
          {
            credential_configuration_id: o.configuration ?? 'pid',
            claims: o.claims ?? PID_CLAIMS,
            ...(o.txCode ? { tx_code: { input_mode: 'numeric' as const, length: 6 } } : {}),
          },
          metadata,
        ),
      );
      return { offerId: created.offerId, preAuthorizedCode: preAuthorizedCode(secrets, created.offerId), txCode: created.txCode, position: created.position };
    },
    preAuthorized: (code, txCode) => ({ grant: 'pre-authorized_code', preAuthorizedCode: code, txCode, clientId: field({}, 'client_id') }),
    dpop: (key, path, accessToken) => dpopProof(key, { htm: 'POST', htu: endpointUrl(PUBLIC_URL, path), ...(accessToken === undefined ? {} : { accessToken }) }),
    keyProof: (holder, nonce = issueCNonce(secrets, new Date(), 120)) =>
      new SignJWT({ aud: PUBLIC_URL, iat: Math.floor(Date.now() / 1000), nonce })
        .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: holder.publicJwk })
        .sign(holder.privateKey),
  };
  try {
    await body(steps);
  } finally {
    await runner.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
};

export { newWalletKey, PATHS, PRE_AUTHORIZED_CODE_GRANT };
