// Management API (scope `connector`), the HTTP edge of ./setCredentialStatus.ts: `PUT` sets the
// status of what was issued under an offer, `GET` reads it. Both answer
// `{status, statusReferences: [{uri, idx}]}` with the credential-status stream's revision as ETag;
// errors are answered as problems through src/issuance/problems.ts: an unknown offer
// 404, a stale If-Match 412, nothing issued yet or a revoked credential made valid or suspended 409.
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import * as credentialStatus from '../../../streams/credentialStatus.js';
import { logRef } from '../../../streams/kernel.js';
import { readJson } from '../../http/body.js';
import { withMessage } from '../../http/codecs.js';
import { ifMatch } from '../../http/conditional.js';
import { HttpError } from '../../http/problem.js';
import { decode } from '../../http/validate.js';
import { requestIdOf } from '../../log.js';
import { principalOf, requireScope } from '../../tenancy/authenticate.js';
import type { IssuanceContext } from '../context.js';
import { problemOf } from '../problems.js';
import { credentialStatusOf, etagOf, ownOffer, setCredentialStatus, type IssuedStatus } from './setCredentialStatus.js';

const PATH = '/offers/:offer_id/credential-status';
const BODY_LIMIT = 4 * 1024;

const SetStatusBody = t.type({ status: withMessage(credentialStatus.CredentialStatus, 'expected "revoked", "suspended" or "valid"') });

type Deps = Pick<IssuanceContext, 'store' | 'runner' | 'config' | 'log' | 'now'>;

const reply = (http: Context, { state, revision }: IssuedStatus): void => {
  http.set('ETag', etagOf(revision));
  http.body = { status: state.status, statusReferences: state.references.map(({ uri, idx }) => ({ uri, idx })) };
};

export const credentialStatusRouter = (deps: Deps): Router => {
  /** The offer's id if the caller's tenant owns it; 404 otherwise, whoever else owns it. */
  const ownedOffer = (http: Context): string => {
    const owned = ownOffer(deps.runner.db, principalOf(http).tenantId, http.params['offer_id'] ?? '');
    if (isLeft(owned)) throw new HttpError(problemOf(owned.left));
    return owned.right;
  };

  const router = new Router();
  router.get(PATH, requireScope('connector'), async (http) => {
    const issued = await credentialStatusOf(deps.store, ownedOffer(http));
    if (isLeft(issued)) throw new HttpError(problemOf(issued.left));
    reply(http, issued.right);
  });

  router.put(PATH, requireScope('connector'), async (http) => {
    const offerId = ownedOffer(http);
    const body = decode(SetStatusBody, await readJson(http, { limitBytes: BODY_LIMIT }), 'body');
    const matches = ifMatch(http);
    const command: Extract<credentialStatus.Command, { readonly type: 'SetCredentialStatus' }> = {
      type: 'SetCredentialStatus',
      data: { status: body.status, changeId: randomUUID(), at: deps.now().toISOString() },
    };
    const metadata = { actor: `apikey:${principalOf(http).keyId}`, requestId: requestIdOf(http) };
    const handled = await setCredentialStatus(deps.store, offerId, command, matches, metadata);
    if (isLeft(handled)) throw new HttpError(problemOf(handled.left));
    if (handled.right.position) {
      // So that the served status list, and a GET, show the change once this answer is out.
      await deps.runner.waitFor(handled.right.position, deps.config.readYourWritesTimeoutMs);
      deps.log.info('credential status changed', { offerRef: logRef(offerId), status: body.status });
    }
    reply(http, handled.right);
  });
  return router;
};
