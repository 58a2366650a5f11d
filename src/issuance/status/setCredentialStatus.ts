// The status of what was issued under an offer, as use cases apart from their HTTP edge
// (./credentialStatusRoutes.ts): read it, or set it (`revoked`, `suspended` or `valid`) for every
// credential issued under the offer. The rules are the decider's (streams/credentialStatus.ts);
// its refusals, and a stale If-Match, come back as typed errors. Without If-Match a lost race is
// decided again on the stream as it now is; with one, it is PreconditionFailed, as the client's
// view is stale. Only the tenant that owns the offer sees it.
import { isLeft, isRight, left, right, type Either } from 'fp-ts/lib/Either.js';
import { findOffer } from '../../../projections/offers.js';
import type { SqlReader } from '../../../projections/projection.js';
import * as credentialStatus from '../../../streams/credentialStatus.js';
import { streamRef } from '../../../streams/kernel.js';
import { handleCommand, loadStream, type EventMetadata, type Loaded } from '../../eventstore/handle.js';
import type { EventStore, Position } from '../../eventstore/port.js';

/** Tries before giving up on lost races; each loss means another change got in first. */
const ATTEMPTS = 5;

/** What was issued under the offer has a status: which, its entries, and the stream's revision. */
export interface IssuedStatus {
  readonly state: Exclude<credentialStatus.State, { readonly status: 'none' }>;
  readonly revision: number;
}

export const etagOf = (revision: number): string => `"${revision}"`;

/** Why a status is not read or changed: no such offer for the tenant, the decider's rules, or an If-Match naming another revision. */
export type SetStatusError =
  | { readonly _tag: 'OfferNotFound' }
  | Exclude<credentialStatus.DomainError, { readonly _tag: 'AlreadyAllocated' }>
  | { readonly _tag: 'PreconditionFailed' };

/** The offer's id if the tenant owns it. */
export const ownOffer = (db: SqlReader, tenantId: string, offerId: string): Either<SetStatusError, string> =>
  findOffer(db, tenantId, offerId) ? right(offerId) : left({ _tag: 'OfferNotFound' });

const load = async (store: EventStore, offerId: string): Promise<Loaded<credentialStatus.State>> => {
  const loaded = await loadStream(store, credentialStatus.credentialStatus, credentialStatus.credentialStatusStream(offerId));
  if (isLeft(loaded)) throw new Error(`${streamRef(credentialStatus.credentialStatusStream(offerId))}: ${loaded.left._tag}`);
  return loaded.right;
};

const issuedOf = (loaded: Loaded<credentialStatus.State>): Either<SetStatusError, IssuedStatus> => {
  const { state, expectedRevision } = loaded;
  return state.status === 'none' || typeof expectedRevision !== 'number' ? left({ _tag: 'NothingIssued' }) : right({ state, revision: expectedRevision });
};

/** The status of what was issued under the offer. */
export const credentialStatusOf = async (store: EventStore, offerId: string): Promise<Either<SetStatusError, IssuedStatus>> => issuedOf(await load(store, offerId));

/**
 * Sets the status of what was issued under the offer. Under If-Match (`matches`) the client's
 * view decides: the revision it names is checked against the one loaded, and a race lost after
 * that is PreconditionFailed, never decided again; without, a lost race is decided again.
 */
export const setCredentialStatus = async (
  store: EventStore,
  offerId: string,
  command: Extract<credentialStatus.Command, { readonly type: 'SetCredentialStatus' }>,
  matches: ((etag: string) => boolean) | undefined,
  metadata: EventMetadata,
): Promise<Either<SetStatusError, IssuedStatus & { readonly position: Position | undefined }>> => {
  const stream = credentialStatus.credentialStatusStream(offerId);
  let loaded: Loaded<credentialStatus.State> | undefined;
  if (matches) {
    loaded = await load(store, offerId);
    const issued = issuedOf(loaded);
    if (isLeft(issued)) return issued;
    if (!matches(etagOf(issued.right.revision))) return left({ _tag: 'PreconditionFailed' });
  }
  const handled = await handleCommand(store, credentialStatus.credentialStatus, stream, command, {
    commandId: command.data.changeId,
    metadata,
    ...(loaded ? { loaded } : { retries: ATTEMPTS - 1 }),
  });
  if (isRight(handled)) {
    const { state, position, revision } = handled.right;
    // A status was set: the stream has its allocation.
    if (state.status === 'none') throw new Error(`${streamRef(stream)}: a status set on nothing issued`);
    return right({ state, revision, position });
  }
  const failed = handled.left;
  switch (failed.kind) {
    case 'store':
      if (failed.error._tag === 'StreamDeleted') throw new Error(`${streamRef(stream)} is deleted`);
      if (matches) return left({ _tag: 'PreconditionFailed' });
      throw new Error(`${streamRef(stream)}: kept losing to concurrent changes`);
    case 'domain':
      return refused(failed.error);
  }
};

const refused = (error: credentialStatus.DomainError): Either<SetStatusError, never> => {
  switch (error._tag) {
    // Only an allocation can be refused so; these routes never allocate.
    case 'AlreadyAllocated':
      throw new Error('credential status: a status change was refused as an allocation');
    case 'NothingIssued':
    case 'RevocationIsFinal':
      return left(error);
  }
};
