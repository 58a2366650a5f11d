// Management API: the status of what was issued under an offer. `PUT` sets it (`revoked`,
// `suspended` or `valid`) for every credential issued under the offer; `GET` reads it. Both answer
// `{status, statusReferences: [{uri, idx}]}` with the credential-status stream's revision as ETag.
// The rules are the decider's (streams/credentialStatus.ts); `setCredentialStatus` returns its
// refusals, and a stale If-Match, as typed errors, and the routes turn them into problems: an unknown offer 404, a stale If-Match 412, nothing issued yet or a revoked credential
// made valid or suspended 409. Without If-Match a lost race is decided again on the stream as it
// now is; with one, it is a 412, as the client's view is stale.
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import * as t from 'io-ts';
import { isLeft, isRight, left, type Either } from 'fp-ts/lib/Either.js';
import { findOffer } from '../../../projections/offers.js';
import * as credentialStatus from '../../../streams/credentialStatus.js';
import { handleCommand, loadStream, type EventMetadata, type Handled, type Loaded } from '../../eventstore/handle.js';
import type { EventStore } from '../../eventstore/port.js';
import { readJson } from '../../http/body.js';
import { withMessage } from '../../http/codecs.js';
import { conflict, HttpError, notFound, preconditionFailed } from '../../http/problem.js';
import { decode } from '../../http/validate.js';
import type { IssuanceContext } from '../context.js';
import { requestIdOf } from '../../log.js';
import { logRef, streamRef } from '../../../streams/kernel.js';
import { ifMatch } from '../../http/conditional.js';
import { principalOf, requireScope } from '../../tenancy/authenticate.js';

const PATH = '/offers/:offer_id/credential-status';
const BODY_LIMIT = 4 * 1024;
/** Tries before giving up on lost races; each loss means another change got in first. */
const ATTEMPTS = 5;

const SetStatusBody = t.type({ status: withMessage(credentialStatus.CredentialStatus, 'expected "revoked", "suspended" or "valid"') });

type Deps = Pick<IssuanceContext, 'store' | 'runner' | 'config' | 'log' | 'now'>;
type Allocated = Exclude<credentialStatus.State, { readonly status: 'none' }>;

const etagOf = (revision: number): string => `"${revision}"`;

/** Why a status change is refused: the decider's rules, or an If-Match naming another revision. */
export type SetStatusError = credentialStatus.DomainError | { readonly _tag: 'PreconditionFailed' };

const refusal = (error: SetStatusError): Error => {
  switch (error._tag) {
    case 'NothingIssued':
      return new HttpError(conflict('No credential with a status has been issued under this offer yet.'));
    case 'RevocationIsFinal':
      return new HttpError(conflict('The credentials issued under this offer are revoked; revocation is final.'));
    case 'PreconditionFailed':
      return new HttpError(preconditionFailed());
    case 'AlreadyAllocated':
      // Only an allocation can be refused so; these routes never allocate.
      return new Error('credential status: a status change was refused as an allocation');
  }
};

const load = async (store: EventStore, offerId: string): Promise<Loaded<credentialStatus.State>> => {
  const loaded = await loadStream(store, credentialStatus.credentialStatus, credentialStatus.credentialStatusStream(offerId));
  if (isLeft(loaded)) throw new Error(`${streamRef(credentialStatus.credentialStatusStream(offerId))}: ${loaded.left._tag}`);
  return loaded.right;
};

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
): Promise<Either<SetStatusError, Handled<credentialStatus.State, credentialStatus.Event>>> => {
  const stream = credentialStatus.credentialStatusStream(offerId);
  let loaded: Loaded<credentialStatus.State> | undefined;
  if (matches) {
    loaded = await load(store, offerId);
    if (loaded.state.status === 'none' || typeof loaded.expectedRevision !== 'number') return left({ _tag: 'NothingIssued' });
    if (!matches(etagOf(loaded.expectedRevision))) return left({ _tag: 'PreconditionFailed' });
  }
  const handled = await handleCommand(store, credentialStatus.credentialStatus, stream, command, {
    commandId: command.data.changeId,
    metadata,
    ...(loaded ? { loaded } : { retries: ATTEMPTS - 1 }),
  });
  if (isRight(handled)) return handled;
  const error = handled.left;
  if (error._tag === 'WrongExpectedRevision') {
    if (matches) return left({ _tag: 'PreconditionFailed' });
    throw new Error(`${streamRef(stream)}: kept losing to concurrent changes`);
  }
  if (error._tag === 'StreamDeleted') throw new Error(`${streamRef(stream)} is deleted`);
  return left(error);
};

const reply = (http: Context, state: Allocated, revision: number): void => {
  http.set('ETag', etagOf(revision));
  http.body = { status: state.status, statusReferences: state.references.map(({ uri, idx }) => ({ uri, idx })) };
};

export const credentialStatusRouter = (deps: Deps): Router => {
  /** The offer's id if the caller's tenant owns it; 404 otherwise, whoever else owns it. */
  const ownOffer = (http: Context): string => {
    const offerId = http.params['offer_id'] ?? '';
    if (!findOffer(deps.runner.db, principalOf(http).tenantId, offerId)) throw new HttpError(notFound('No offer with this id exists for your tenant.'));
    return offerId;
  };

  const router = new Router();
  router.get(PATH, requireScope('connector'), async (http) => {
    const { state, expectedRevision } = await load(deps.store, ownOffer(http));
    if (state.status === 'none' || typeof expectedRevision !== 'number') throw refusal({ _tag: 'NothingIssued' });
    reply(http, state, expectedRevision);
  });

  router.put(PATH, requireScope('connector'), async (http) => {
    const offerId = ownOffer(http);
    const body = decode(SetStatusBody, await readJson(http, { limitBytes: BODY_LIMIT }), 'body');
    const matches = ifMatch(http);
    const command: Extract<credentialStatus.Command, { readonly type: 'SetCredentialStatus' }> = {
      type: 'SetCredentialStatus',
      data: { status: body.status, changeId: randomUUID(), at: deps.now().toISOString() },
    };
    const metadata = { actor: `apikey:${principalOf(http).keyId}`, requestId: requestIdOf(http) };
    const handled = await setCredentialStatus(deps.store, offerId, command, matches, metadata);
    if (isLeft(handled)) throw refusal(handled.left);
    const { state, position, revision } = handled.right;
    if (position) {
      // So that the served status list, and a GET, show the change once this answer is out.
      await deps.runner.waitFor(position, deps.config.readYourWritesTimeoutMs);
      deps.log.info('credential status changed', { offerRef: logRef(offerId), status: body.status });
    }
    reply(http, state as Allocated, revision);
  });
  return router;
};
