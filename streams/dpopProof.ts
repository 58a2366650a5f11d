// Stream category `dpopproof`: one stream per DPoP proof accepted, `dpopproof-<id>`, where the id
// is the SHA-256 of the proof key's thumbprint and the proof's `jti` (RFC 9449, section 11.1:
// replay detection per key). Created with expected revision `no_stream`: a replayed proof loses
// the append on any instance (streams/singleUse.ts). The `jti` itself is wallet-chosen text and never recorded.
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { eventCodec } from './event.js';
import { singleUse } from './singleUse.js';

export const category = 'dpopproof';
export const dpopProofStream = (proofId: string): string => streamName(category, proofId);

export const DpopProofUsed = eventCodec('DpopProofUsed', t.type({ usedAt: t.string, htm: t.string, htu: t.string }));

/** Every event a DPoP proof stream can hold. */
export const DpopProofEvent = DpopProofUsed;
export type DpopProofEvent = t.TypeOf<typeof DpopProofEvent>;

export const dpopProof = singleUse<DpopProofEvent>(category, DpopProofEvent, 'DpopProofUsed');
