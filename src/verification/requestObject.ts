// Step 2: the wallet fetches the signed authorization request (OpenID4VP 1.0 section 5, HAIP).
// Every fetch is a `PresentationRequestFetched` event with a fresh nonce and a fresh ECDH-ES key
// for this request only, so any instance can decrypt the answer, also after a restart.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { SignJWT, type JWK } from 'jose';
import {
  presentation,
  presentationStream,
  purposes,
  type FlowType,
  type PresentationEvent,
  type PresentationState,
} from '../../streams/presentation.js';
import type { SigningIdentity } from '../crypto/certificates.js';
import type { DataKeys } from '../crypto/dataKeys.js';
import { handleCommand, type EventMetadata } from '../eventstore/handle.js';
import type { EventStore, Json } from '../eventstore/port.js';
import { openSession, unavailable, type FetchError } from './session.js';

export const REQUEST_OBJECT_TYPE = 'oauth-authz-req+jwt';
/** The static audience of a request object for a wallet without discovery (OpenID4VP 1.0 section 5.8). */
const SELF_ISSUED_AUDIENCE = 'https://self-issued.me/v2';
export const RESPONSE_ENCRYPTION = { alg: 'ECDH-ES', enc: ['A128GCM', 'A256GCM'] } as const;
/** Bounds the events a re-fetching client can add to one session. */
export const MAX_FETCHES = 20;

export interface Verifier {
  readonly identity: SigningIdentity;
  /** `x509_hash:` + base64url SHA-256 of the access certificate's DER. */
  readonly clientId: string;
  readonly publicUrl: string;
}

export const responseUri = (publicUrl: string, state: string): string =>
  `${publicUrl}/oidc4vp/${encodeURIComponent(state)}/response`;

const random = (bytes: number): string => randomBytes(bytes).toString('base64url');

const newResponseKey = (): { publicJwk: JWK; privateJwk: JWK } => {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { publicJwk: publicKey.export({ format: 'jwk' }) as JWK, privateJwk: privateKey.export({ format: 'jwk' }) as JWK };
};

/**
 * Records a fetch and returns the signed request object. A concurrent fetch of the same session
 * makes the append lose; fetches do not conflict, so it is retried on the new revision.
 */
export const fetchRequestObject = async (
  deps: { readonly store: EventStore; readonly dataKeys: DataKeys; readonly verifier: Verifier },
  state: string,
  flowType: FlowType,
  walletNonce: string | undefined,
  metadata: EventMetadata,
  now: Date,
): Promise<Either<FetchError, string>> => {
  const opened = await openSession(deps, state, now);
  if (isLeft(opened)) return opened;
  const { key, request, expiresAt, loaded } = opened.right;
  const kid = random(16);
  const nonce = random(32);
  const { publicJwk, privateJwk } = newResponseKey();
  const fetched: PresentationEvent = {
    type: 'PresentationRequestFetched',
    data: { kid, flowType, nonce, responseKey: key.seal(privateJwk as Json, purposes.responseKey(kid)), fetchedAt: now.toISOString() },
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    const result = await handleCommand(
      deps.store,
      presentation,
      presentationStream(state),
      (current): Either<FetchError, readonly PresentationEvent[]> => {
        const problem = unavailable(current, now);
        if (problem) return left(problem);
        return current.status === 'open' && current.fetched.length >= MAX_FETCHES ? left({ _tag: 'TooManyFetches' }) : right([fetched]);
      },
      metadata,
      attempt === 0 ? loaded : undefined,
    );
    if (isLeft(result)) {
      if (result.left._tag === 'WrongExpectedRevision') continue;
      return left(result.left._tag === 'StreamDeleted' ? { _tag: 'UnknownSession' } : result.left);
    }
    return right(
      await signRequestObject(deps.verifier, {
        state,
        nonce,
        walletNonce,
        kid,
        publicJwk,
        dcqlQuery: request.dcqlQuery as unknown as Json,
        transactionData: request.transactionData,
        expiresAt,
        now,
      }),
    );
  }
  throw new Error(`presentation ${state}: request fetch kept losing to concurrent writers`);
};

interface RequestContent {
  readonly state: string;
  readonly nonce: string;
  readonly walletNonce: string | undefined;
  readonly kid: string;
  readonly publicJwk: JWK;
  readonly dcqlQuery: Json;
  readonly transactionData: readonly string[];
  readonly expiresAt: Date;
  readonly now: Date;
}

export const signRequestObject = (verifier: Verifier, content: RequestContent): Promise<string> => {
  const { kty, crv, x, y } = content.publicJwk;
  const payload = {
    client_id: verifier.clientId,
    response_type: 'vp_token',
    response_mode: 'direct_post.jwt',
    response_uri: responseUri(verifier.publicUrl, content.state),
    nonce: content.nonce,
    state: content.state,
    dcql_query: content.dcqlQuery,
    ...(content.transactionData.length > 0 ? { transaction_data: content.transactionData } : {}),
    ...(content.walletNonce !== undefined ? { wallet_nonce: content.walletNonce } : {}),
    client_metadata: {
      jwks: { keys: [{ kty, crv, x, y, use: 'enc', alg: RESPONSE_ENCRYPTION.alg, kid: content.kid }] },
      encrypted_response_enc_values_supported: [...RESPONSE_ENCRYPTION.enc],
      vp_formats_supported: { 'dc+sd-jwt': { 'sd-jwt_alg_values': ['ES256'], 'kb-jwt_alg_values': ['ES256'] } },
    },
  };
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', typ: REQUEST_OBJECT_TYPE, x5c: [...verifier.identity.x5c] })
    .setAudience(SELF_ISSUED_AUDIENCE)
    .setIssuedAt(Math.floor(content.now.getTime() / 1000))
    .setExpirationTime(Math.floor(content.expiresAt.getTime() / 1000))
    .sign(verifier.identity.privateKey);
};
