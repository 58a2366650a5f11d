// Who the verifier is for each tenant (issue 38). A tenant with an active access key of its own
// (signing-key resources, read through `TenantSigningKeys`) signs its request objects with it,
// `client_id` the `x509_hash:` of that key's certificate; any other tenant is served by the
// deployment's access certificate (ACCESS_CERTIFICATE_FILE / the token label / the development
// chain), as every tenant was before. A tenant's registration (PUT /verifier, read through
// `TenantVerifierRegistrations`) rides along, for `verifier_info` and enforcement.
//
// The verifier is resolved when a request is created and its `client_id` recorded on
// `PresentationRequested`, so every later step uses the session's verifier: the request object
// served by request URI, and the audience a KB-JWT or the client id an mdoc SessionTranscript is
// checked against. A stream written before the client id was recorded is the deployment's.
//
// A rotation between creation and a fetch of the request object: the wallet was given the
// recorded client id (in the `openid4vp://` URI), the request object's `client_id` must be
// identical (OpenID4VP 1.0 section 5.10.1) and be the hash of the certificate whose key signed it
// (section 5.9.3, `x509_hash`). The key that made it is retired, and a retired key never signs
// again (issue 38 item 1); the new key's certificate hashes to another client id, which the
// wallet would refuse. So the request object of such a session is refused (`VerifierKeyReplaced`)
// and the integrator makes a new request; nothing else signs for it. Answers to a request already
// handed out are still judged against the recorded client id: judging signs nothing.
//
// Isolation: only the session's own tenant's key is ever looked up for it, so one tenant's key
// never signs another's request object.
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { x509HashClientId } from '../crypto/certificates.js';
import type { SigningIdentity } from '../crypto/signingIdentity.js';
import type { TenantSigningKeys, TenantVerifierRegistrations } from '../tenantIdentity/ports.js';
import type { Verifier } from './authorizationRequest.js';

/** The session's request object cannot be signed: the access key it was made under is no longer its tenant's active one. */
export interface VerifierKeyReplaced {
  readonly _tag: 'VerifierKeyReplaced';
}

/** What a session records of its verifier. */
export interface RecordedVerifier {
  readonly tenantId: string;
  /** Absent on streams written before it was recorded: the deployment's. */
  readonly clientId?: string;
}

export interface Verifiers {
  /** The deployment's verifier; its public URL is every response URI's base. */
  readonly deployment: Verifier;
  /** The verifier of a request `tenantId` creates now. Throws KeysUnavailable when the key store does not answer. */
  forNewRequest(tenantId: string): Promise<Verifier>;
  /** The verifier that signs for a session, or why none can now (see the top of this file). */
  forSession(session: RecordedVerifier): Promise<Either<VerifierKeyReplaced, Verifier>>;
}

/** The client id a session's answers are bound to: the one recorded at creation, else the deployment's. */
export const sessionClientId = (verifiers: Pick<Verifiers, 'deployment'>, session: Pick<RecordedVerifier, 'clientId'>): string =>
  session.clientId ?? verifiers.deployment.clientId;

const ownVerifier = (identity: SigningIdentity, publicUrl: string): Verifier => {
  const leaf = identity.chain[0];
  if (leaf === undefined) throw new Error("a tenant's access key has an empty certificate chain");
  return { identity, clientId: x509HashClientId(leaf), publicUrl };
};

export const tenantVerifiers = (
  deployment: Verifier,
  ports: { readonly tenantKeys: TenantSigningKeys; readonly verifierRegistrations: TenantVerifierRegistrations },
): Verifiers => {
  const withRegistration = (verifier: Verifier, tenantId: string): Verifier => {
    const registration = ports.verifierRegistrations.of(tenantId);
    return registration === undefined ? verifier : { ...verifier, registration };
  };
  const signingFor = async (tenantId: string): Promise<Verifier> => {
    const own = await ports.tenantKeys.active(tenantId, 'access');
    return own === undefined ? deployment : ownVerifier(own, deployment.publicUrl);
  };
  return {
    deployment,
    forNewRequest: async (tenantId) => withRegistration(await signingFor(tenantId), tenantId),
    async forSession(session) {
      const recorded = sessionClientId({ deployment }, session);
      if (recorded === deployment.clientId) return right(withRegistration(deployment, session.tenantId));
      const current = await signingFor(session.tenantId);
      return current.clientId === recorded ? right(withRegistration(current, session.tenantId)) : left({ _tag: 'VerifierKeyReplaced' });
    },
  };
};
