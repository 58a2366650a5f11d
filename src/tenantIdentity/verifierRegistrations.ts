// The real TenantVerifierRegistrations (ports.ts): each tenant's registration as a relying party
// (`PUT /verifier`, streams/tenantVerifier.ts) from the read models. The certificate was checked
// when it was stored (registrationCertificate.ts); its `credentials` are read as stored.
import { findLatest } from '../../projections/resources.js';
import type { SqlReader } from '../../projections/projection.js';
import { singletonId } from '../../streams/singleton.js';
import { VERIFIER_KIND } from '../../streams/tenantVerifier.js';
import type { RegisteredCredential, TenantVerifierRegistrations } from './ports.js';

export const verifierRegistrationsOf = (db: () => SqlReader): TenantVerifierRegistrations => ({
  of: (tenantId) => {
    const recorded = findLatest(db(), { tenantId, kind: VERIFIER_KIND.name, id: singletonId(VERIFIER_KIND.name, tenantId) });
    const certificate = recorded?.data['registration_certificate'];
    if (!recorded || typeof certificate !== 'string') return undefined;
    return {
      registrationCertificate: certificate,
      credentials: recorded.data['credentials'] as unknown as readonly RegisteredCredential[],
      enforce: recorded.data['enforce_registration'] === true,
    };
  },
});
