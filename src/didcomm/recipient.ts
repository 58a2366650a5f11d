// What the connector checks of a recipient when a message is created, so a message it could never
// send is a 400 and nothing is recorded: the DID method (did:peer:2 or did:web), and for a
// did:peer:2, whose document is in the DID itself, an X25519 key-agreement key and a DIDComm v2
// messaging service whose endpoint is allowed. A did:web is read at each attempt: its document
// may change, so what it says is checked then.
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import type { EgressPolicy } from '../egress/egress.js';
import { checkEndpointUrl } from './endpointSafety.js';
import { usableService } from './pack.js';
import { checkRecipientDid, resolveDid, type DidRefused } from './resolve.js';

export type RecipientRefused = DidRefused | { readonly _tag: 'RecipientUnusable'; readonly reason: string };

const unusable = (reason: string): Either<RecipientRefused, never> => left({ _tag: 'RecipientUnusable', reason });

export const checkRecipient = async (did: string, policy: EgressPolicy): Promise<Either<RecipientRefused, void>> => {
  const checked = checkRecipientDid(did);
  if (checked._tag === 'Left' || !did.startsWith('did:peer:2')) return checked;
  // A did:peer:2 resolves without I/O.
  const resolved = await resolveDid(did, { allowHttp: false, fetchDocument: async () => left('a did:peer is read without I/O') });
  if (resolved._tag === 'Left') return resolved.left._tag === 'DidNotResolved' ? unusable(resolved.left.reason) : left(resolved.left);
  const service = usableService(resolved.right);
  if (service._tag === 'Left') return unusable(service.left.reason);
  const url = checkEndpointUrl(service.right.uri, policy);
  return url._tag === 'Left' ? unusable(`its service endpoint ${url.left.detail}`) : right(undefined);
};

/** The problem entry message for a refused recipient. */
export const refusalMessage = (refused: RecipientRefused): string => {
  switch (refused._tag) {
    case 'UnsupportedDidMethod':
      return `the DID method ${refused.method} is not supported: a recipient is a did:peer:2 or a did:web`;
    case 'InvalidDid':
    case 'RecipientUnusable':
      return `the recipient cannot be sent to: ${refused.reason}`;
  }
};
