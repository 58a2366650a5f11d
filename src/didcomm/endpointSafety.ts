// Where the connector may send a DIDComm message or read a did:web document. Both addresses come
// from documents anyone can write, so they go through the egress guard (src/egress/egress.ts:
// no private or reserved address, checked where the name resolves), and DIDComm adds one rule of
// its own: https only. EGRESS_ALLOW_PRIVATE_NETWORKS=true lifts both, for closed networks and tests.
import { left, type Either } from 'fp-ts/lib/Either.js';
import { checkUrl, type EgressFailure, type EgressPolicy } from '../egress/egress.js';

/** The URL when the egress guard allows it and it is https (or the switch is on); why not otherwise. */
export const checkEndpointUrl = (text: string, policy: EgressPolicy): Either<EgressFailure, URL> => {
  const scheme = URL.canParse(text) ? new URL(text).protocol : undefined;
  if (scheme === 'http:' && !policy.allowPrivateNetworks) return left({ _tag: 'EgressFailure', kind: 'refused', detail: 'uses the scheme http: (https only)' });
  return checkUrl(text, policy);
};
