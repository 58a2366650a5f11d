// The `signing-keys` kind (issue 38): a tenant's own signing keys (streams/signingKey.ts), what its
// use cases (createSigningKey.ts, certifySigningKey.ts, activateSigningKey.ts) and its routes
// (signingKeys.ts) share. Scope `admin`: a tenant's keys are its identity.
import { SIGNING_KEY_KIND, signingKey, signingKeyStream, type Command, type DomainError, type SigningKeyEvent } from '../../streams/signingKey.js';
import type { VersionedKind } from './kind.js';

export const signingKeysKind: VersionedKind<SigningKeyEvent, Command, DomainError> = {
  path: 'signing-keys',
  name: SIGNING_KEY_KIND.name,
  scope: 'admin',
  decider: signingKey,
  streamOf: signingKeyStream,
  search: { filters: { role: 'EQUAL_STRING', state: 'EQUAL_STRING' }, sorts: {} },
};
