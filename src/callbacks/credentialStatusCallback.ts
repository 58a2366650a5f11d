// The Issuance Event a status change of what was issued under an offer is translated to:
// SUSPENDED, REVOKED or REINSTATED, with the change's own id as `eventId`, so every change is
// delivered however often a status recurs. Nothing personal, nothing sealed.
import type { CredentialStatusEvent } from '../../streams/credentialStatus.js';
import type { CallbackRequest } from '../../streams/delivery.js';
import { issuanceEvent } from './issuanceCallback.js';

const statusOf = { CredentialSuspended: 'SUSPENDED', CredentialRevoked: 'REVOKED', CredentialReinstated: 'REINSTATED' } as const;

/** The callback a credential-status event asks for; undefined for the allocation. */
export const credentialStatusCallback = (event: CredentialStatusEvent): CallbackRequest | undefined =>
  event.type === 'CredentialStatusAllocated' ? undefined : issuanceEvent(event.data, event.data.changeId, statusOf[event.type]);
