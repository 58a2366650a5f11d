// The console's own JSON routes on the management listener (behind the API key like every other):
// pages of a tenant's presentation requests, offers and deliveries from their read models
// (keyset-paginated), any stream of the tenant's for the auditor (and live, as server-sent
// events), the re-send of an abandoned delivery, the dashboard's counts and the trusted lists'
// state. What the existing routes already answer (a tenant's key and scopes, an offer and its
// credential status, resources, their history and revisions) the console asks them.
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import { countDeliveriesByState, findDelivery, pageDeliveries } from '../../projections/deliveries.js';
import { listOffers } from '../../projections/offers.js';
import { listPresentations, outcomesSince } from '../../projections/presentations.js';
import type { DeliveryStatus } from '../../streams/delivery.js';
import { PresentationStatus } from '../../streams/presentation.js';
import { OfferStatus } from '../../streams/offer.js';
import type { PresentedCertificate, ServiceContext } from '../featureContract.js';
import { conflict, HttpError, invalidValues, notFound } from '../http/problem.js';
import { requestIdOf } from '../log.js';
import { resendDelivery, type ResendError } from '../callbacks/resend.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import type { TrustListStore } from '../trust/trustListStore.js';
import { expiresSoon, shownRegistration, tenantSigningKeys } from './identity.js';
import type { LiveStreams } from './live.js';
import { listQuery } from './query.js';
import { readVisibleStream, SEALED, shownEvent } from './streamView.js';

export const CONSOLE_API = '/console/api';

/** What the console says wherever it shows events. */
export const CLAIMS_NOTICE =
  'Claim values are never shown: presented and issued claims are sealed with a per-flow data key that is destroyed once the flow ends, so they are gone or unreadable by design. Sealed values appear as ' +
  JSON.stringify(SEALED) + '.';

const PRESENTATION_STATUSES = ['OPEN', ...Object.keys(PresentationStatus.keys)];
const OFFER_STATUSES = Object.keys(OfferStatus.keys);
const DELIVERY_STATES: readonly DeliveryStatus[] = ['pending', 'delivered', 'abandoned', 'undeliverable'];

const pageParams = (ctx: Context, filterName: string, allowed: readonly string[]) => {
  const { filter, ...query } = listQuery(ctx, filterName, allowed);
  return { tenantId: principalOf(ctx).tenantId, filter, query };
};

const streamParam = (ctx: Context): string => String(ctx.params['stream'] ?? '');

const MAX_STREAM_NAME = 200;

/** `flow`: the stream a delivery tells of (`presentation-<state>`, `offer-<id>`), or undefined. */
const flowParam = (ctx: Context): string | undefined => {
  const value = ctx.query['flow'];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.length > MAX_STREAM_NAME) {
    throw new HttpError(invalidValues([{ location: 'query.flow', message: `expected one stream name of at most ${MAX_STREAM_NAME} characters`, value }]));
  }
  return value;
};

export interface ConsoleDeps {
  readonly context: ServiceContext;
  readonly live: LiveStreams;
  /** The trusted lists this service follows; undefined in static trust mode. */
  readonly trustLists: TrustListStore | undefined;
  readonly certificates: readonly PresentedCertificate[];
}

const noDelivery = (): HttpError => new HttpError(notFound('No delivery of this tenant has this id.'));

/** What a refused re-send answers: a switch over each kind and each refusal, without `default:`. */
const resendProblem = (failed: ResendError): HttpError => {
  switch (failed.kind) {
    case 'store':
      return failed.error._tag === 'WrongExpectedRevision'
        ? new HttpError(conflict('The delivery changed while the re-send was decided; reload and try again.'))
        : noDelivery();
    case 'domain': {
      const error = failed.error;
      switch (error._tag) {
        case 'NotAbandoned':
          return new HttpError(conflict(`Only an abandoned or undeliverable delivery can be re-sent; this one is ${error.status}.`));
        case 'DataGone':
          return new HttpError(conflict('The sealed data of this delivery is destroyed: it cannot be re-sent.'));
        // The decider refuses a re-send with none of these but the first; each means no delivery to re-send.
        case 'DeliveryNotFound':
        case 'DeliveryExists':
        case 'NotClaimable':
        case 'ClaimLost':
          return noDelivery();
      }
    }
  }
};

export const consoleRouter = ({ context, live, trustLists, certificates }: ConsoleDeps): Router => {
  const { runner, store, dataKeys } = context;
  const router = new Router({ prefix: CONSOLE_API });

  router.get('/presentations', requireScope('connector'), (ctx) => {
    const { tenantId, filter, query } = pageParams(ctx, 'status', PRESENTATION_STATUSES);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = listPresentations(runner.db, { tenantId, ...query, ...(filter !== undefined ? { status: filter } : {}) });
  });

  router.get('/offers', requireScope('connector'), (ctx) => {
    const { tenantId, filter, query } = pageParams(ctx, 'status', OFFER_STATUSES);
    ctx.set('Cache-Control', 'no-store');
    const page = listOffers(runner.db, { tenantId, ...query, ...(filter !== undefined ? { where: { status: filter } } : {}) });
    ctx.body = { items: page.items.map(({ tenant_id: _tenant, ...offer }) => ({ ...offer, tx_code_required: offer.tx_code_required === 1, claims_purged: offer.claims_purged === 1 })), next: page.next };
  });

  router.get('/deliveries', requireScope('connector'), (ctx) => {
    const { tenantId, filter, query } = pageParams(ctx, 'state', DELIVERY_STATES);
    const flow = flowParam(ctx);
    ctx.set('Cache-Control', 'no-store');
    const page = pageDeliveries(runner.db, {
      tenantId,
      ...query,
      ...(filter !== undefined ? { state: filter as DeliveryStatus } : {}),
      ...(flow !== undefined ? { sourceStream: flow } : {}),
    });
    ctx.body = { items: page.items.map(({ tenant_id: _tenant, data_destroyed, ...delivery }) => ({ ...delivery, data_destroyed: data_destroyed === 1 })), next: page.next };
  });

  router.post('/deliveries/:delivery_id/resend', requireScope('connector'), async (ctx) => {
    const principal = principalOf(ctx);
    const deliveryId = String(ctx.params['delivery_id']);
    const found = await findDelivery(runner.db, deliveryId);
    if (!found || found.tenant_id !== principal.tenantId) throw new HttpError(notFound('No delivery of this tenant has this id.'));
    const resent = await resendDelivery(store, dataKeys, deliveryId, { actor: `apikey:${principal.keyId}`, requestId: requestIdOf(ctx) });
    if (isLeft(resent)) throw resendProblem(resent.left);
    ctx.status = 202;
    ctx.body = { delivery_id: deliveryId, state: 'pending' };
  });

  router.get('/streams/:stream', async (ctx) => {
    const streamId = streamParam(ctx);
    const events = await readVisibleStream(store, principalOf(ctx), streamId);
    if (!events) throw new HttpError(notFound('No stream of this tenant, in a category this key may read, has this name.'));
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { stream: streamId, notice: CLAIMS_NOTICE, events: events.map(shownEvent) };
  });

  router.get('/streams/:stream/live', async (ctx) => {
    const streamId = streamParam(ctx);
    const events = await readVisibleStream(store, principalOf(ctx), streamId);
    if (!events) throw new HttpError(notFound('No stream of this tenant, in a category this key may read, has this name.'));
    live.serve(ctx, streamId, events);
  });

  router.get('/dashboard', requireScope('connector'), (ctx) => {
    const { tenantId } = principalOf(ctx);
    const now = Date.now();
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      now: new Date(now).toISOString(),
      presentations_last_hour: outcomesSince(runner.db, tenantId, new Date(now - 3_600_000).toISOString(), 'minute'),
      presentations_last_day: outcomesSince(runner.db, tenantId, new Date(now - 86_400_000).toISOString(), 'hour'),
      deliveries: countDeliveriesByState(runner.db, tenantId),
      certificates: [
        ...certificates.map(({ role, subject, notAfter }) => ({
          role,
          owner: 'deployment',
          subject,
          not_after: notAfter.toISOString(),
          expires_soon: expiresSoon(notAfter, now),
        })),
        // The tenant's own active keys, which sign for it in place of the deployment's (issue 38).
        ...tenantSigningKeys(runner.db, tenantId, now).flatMap((key) =>
          key.state === 'active' && key.deleted_at === null && key.certificate
            ? [{ role: key.role, owner: 'tenant', key_id: key.id, subject: key.certificate.subject, not_after: key.certificate.not_after, expires_soon: key.certificate.expires_soon }]
            : [],
        ),
      ],
    };
  });

  // The Identity page: the tenant's signing keys with what their certificates say (scope `admin`, as the keys).
  router.get('/signing-keys', requireScope('admin'), (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { items: tenantSigningKeys(runner.db, principalOf(ctx).tenantId, Date.now()) };
  });

  // The Identity page: what the tenant's registration certificate (PUT /verifier) says, or null while it has none.
  router.get('/registration', requireScope('admin'), (ctx) => {
    const registration = context.verifierRegistrations.of(principalOf(ctx).tenantId);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { registration: registration ? shownRegistration(registration, Date.now()) : null };
  });

  router.get('/trusted-lists', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { mode: trustLists ? 'lists' : 'static', lists: trustLists?.status(new Date()) ?? [] };
  });

  return router;
};

