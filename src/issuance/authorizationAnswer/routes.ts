// The integrator's authorization routes (management API, scope `connector`), the HTTP edge of
// ./answerAuthorization.ts: the authentication page it runs receives `authorization_id`, asks
// GET /authorizations/{id} what the wallet wants, authenticates the user, and answers
// POST /authorizations/{id}/complete with the claims (or a denial); the answer is where to send
// the browser. Errors are answered as problems through src/issuance/problems.ts.
import Router from '@koa/router';
import { isLeft } from 'fp-ts/lib/Either.js';
import { readJson } from '../../http/body.js';
import { HttpError } from '../../http/problem.js';
import { decode } from '../../http/validate.js';
import { requestIdOf } from '../../log.js';
import { principalOf, requireScope } from '../../tenancy/authenticate.js';
import { problemOf } from '../problems.js';
import { answerAuthorization, findAuthorization, type AnswerPorts } from './answerAuthorization.js';
import { ANSWER_LIMIT, CompleteBody } from './request.js';

export const authorizationsRouter = (ports: AnswerPorts): Router => {
  const router = new Router();
  router.get('/authorizations/:authorization_id', requireScope('connector'), async (http) => {
    const found = await findAuthorization(ports, principalOf(http).tenantId, http.params['authorization_id'] ?? '');
    if (isLeft(found)) throw new HttpError(problemOf(found.left));
    const { offerId, state, authorization, outcome } = found.right;
    const { wallet } = authorization.request;
    http.body = {
      authorization_id: http.params['authorization_id'],
      offer_id: offerId,
      status: outcome,
      credential_configuration_ids: [state.credentialConfigurationId],
      claims_required: state.claims === null,
      client_id: wallet.clientId,
      wallet_name: wallet.walletName,
      wallet_provider: wallet.walletProvider,
      expires_at: authorization.expiresAt,
    };
  });

  router.post('/authorizations/:authorization_id/complete', requireScope('connector'), async (http) => {
    const principal = principalOf(http);
    const answered = await answerAuthorization(
      ports,
      principal.tenantId,
      http.params['authorization_id'] ?? '',
      async () => decode(CompleteBody, await readJson(http, { limitBytes: ANSWER_LIMIT }), 'body'),
      { actor: `apikey:${principal.keyId}`, requestId: requestIdOf(http) },
    );
    if (isLeft(answered)) throw new HttpError(problemOf(answered.left));
    http.set('Cache-Control', 'no-store');
    http.body = { redirect_to: answered.right.redirectTo };
  });
  return router;
};
