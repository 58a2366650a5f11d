// Each tenant's presentation verifier: the deployment's, unless the tenant's settings choose
// another trust or status policy (X509_TRUST_POLICY and its per-category variables, extra
// X509_TRUST_ANCHORS, STATUS_LIST_FAILURE_POLICY; src/tenantIdentity/settings.ts). Such a tenant's
// verifier is built at its first presentation and kept until its settings' revision changes. The
// trusted lists and the status list client (its fetches and cache) stay the deployment's.
import type { Config } from '../config/config.js';
import type { Settings, TenantSettings } from '../tenantIdentity/settings.js';
import type { PresentationVerifier } from './presentedCredentialVerifier.js';

/** The settings a verifier is built from. */
const VERIFICATION_SETTINGS = [
  'x509TrustPolicy',
  'x509TrustPolicyPid',
  'x509TrustPolicyQeaa',
  'x509TrustPolicyPubEaa',
  'x509TrustPolicyNonQualifiedEaa',
  'x509TrustAnchors',
  'statusListFailurePolicy',
] as const satisfies readonly (keyof Config & keyof Settings)[];

export type VerificationSettings = Pick<Config, (typeof VERIFICATION_SETTINGS)[number]>;

const verificationSettingsOf = (settings: VerificationSettings): VerificationSettings =>
  Object.fromEntries(VERIFICATION_SETTINGS.map((key) => [key, settings[key]])) as unknown as VerificationSettings;

export interface TenantVerifiersOptions {
  readonly settings: TenantSettings;
  readonly config: Config;
  /** A verifier for the configuration with these settings in place of the environment's. */
  readonly build: (config: Config) => PresentationVerifier;
}

/** A presentation verifier that verifies each presentation as its tenant's settings say (FormatContext `tenantId`). */
export const tenantPresentationVerifier = (options: TenantVerifiersOptions): PresentationVerifier => {
  const deployment = options.build(options.config);
  const deploymentSettings = JSON.stringify(verificationSettingsOf(options.config));
  const views = new Map<string, { readonly revision: number; readonly verify: PresentationVerifier }>();
  const verifierOf = (tenantId: string | undefined): PresentationVerifier => {
    if (tenantId === undefined) return deployment;
    const settings = options.settings.of(tenantId);
    const own = verificationSettingsOf(settings);
    if (JSON.stringify(own) === deploymentSettings) {
      views.delete(tenantId);
      return deployment;
    }
    const held = views.get(tenantId);
    if (held?.revision === settings.revision) return held.verify;
    const verify = options.build({ ...options.config, ...own });
    views.set(tenantId, { revision: settings.revision, verify });
    return verify;
  };
  return (presentation, query, claims, context) => verifierOf(context.tenantId)(presentation, query, claims, context);
};
