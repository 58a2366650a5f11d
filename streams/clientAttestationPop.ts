// Stream category `clientattestationpop`: one stream per wallet attestation PoP accepted,
// `clientattestationpop-<id>`, where the id is the SHA-256 of the attestation key's thumbprint and
// the PoP's `jti` (draft-ietf-oauth-attestation-based-client-auth: the server keeps the jti
// values it saw). Created with expected revision `no_stream`, like a DPoP proof's: a replayed PoP
// loses the append on any instance (streams/singleUse.ts). The `jti` itself is never recorded.
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { eventCodec } from './event.js';
import { singleUse } from './singleUse.js';

export const category = 'clientattestationpop';
export const clientAttestationPopStream = (popId: string): string => streamName(category, popId);

export const ClientAttestationPopUsed = eventCodec('ClientAttestationPopUsed', t.type({ usedAt: t.string, clientId: t.string }));

/** Every event a client attestation PoP stream can hold. */
export const ClientAttestationPopEvent = ClientAttestationPopUsed;
export type ClientAttestationPopEvent = t.TypeOf<typeof ClientAttestationPopEvent>;

export const clientAttestationPop = singleUse<ClientAttestationPopEvent>(category, ClientAttestationPopEvent, 'ClientAttestationPopUsed');
