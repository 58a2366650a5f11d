// The flows: Presentation requests and Offers (lists and each one's live timeline) and Deliveries.
import { get, ProblemError, request } from './api.js';
import { button, field, h, link, select, table } from './dom.js';
import { liveTimeline, pagedList, showError, type PageOf } from './views.js';
import { heading, query, instant, filterForm, type PageContext } from './pages.js';

interface Presentation {
  readonly state: string;
  readonly status: string;
  readonly flow_type: string | null;
  readonly created_at: string;
  readonly finished_at: string | null;
}

const PRESENTATION_STATUSES = ['OPEN', 'FULFILLED', 'REJECTED', 'EXPIRED', 'PROCESSING_ERROR', 'VERIFICATION_FAILED'];

/** A list of flows (sessions, offers) filtered by status and creation time, a page at a time. */
const flowList = <T>(
  ctx: PageContext,
  options: {
    readonly path: string;
    readonly statusLabel: string;
    readonly statuses: readonly string[];
    readonly caption: string;
    readonly headings: readonly string[];
    readonly row: (item: T) => readonly (Node | string)[];
  },
): void => {
  const status = select('status', [['', `Any ${options.statusLabel.toLowerCase()}`], ...options.statuses.map((s) => [s, s] as const)]);
  const from = h('input', { type: 'datetime-local', name: 'from' });
  const until = h('input', { type: 'datetime-local', name: 'until' });
  const results = h('div');
  const show = (): void => {
    results.replaceChildren(
      pagedList<T>(
        (after) => get<PageOf<T>>(`${options.path}${query({ status: status.value, from: instant(from), until: instant(until), after })}`),
        (items) => table(options.caption, options.headings, items.map(options.row)),
      ),
    );
  };
  ctx.main.append(filterForm('Filter', [field(options.statusLabel, status), field('Created from', from), field('Created until', until)], show), results);
  show();
};

export const presentationsPage = (ctx: PageContext): void => {
  heading(ctx, 'Presentation requests', h('p', {}, 'Newest first. Open one to see its timeline, live.'));
  flowList<Presentation>(ctx, {
    path: '/console/api/presentations',
    statusLabel: 'Outcome',
    statuses: PRESENTATION_STATUSES,
    caption: 'Presentation requests',
    headings: ['Request', 'State', 'Flow type', 'Created', 'Outcome at'],
    row: (p) => [link(p.state.slice(0, 12) + '…', `#/presentations/${encodeURIComponent(p.state)}`), p.status, p.flow_type ?? 'not fetched', p.created_at, p.finished_at ?? ''],
  });
};

export const presentationPage = (ctx: PageContext, state: string): void => {
  heading(ctx, 'Presentation request', h('p', {}, 'State ', h('code', {}, state), ' · ', link('Auditor view', `#/audit/${encodeURIComponent(`presentation-${state}`)}`), ' · ', link('Back to Presentation requests', '#/presentations')));
  ctx.main.append(liveTimeline(`presentation-${state}`, ctx.signal), flowCallbacks(`presentation-${state}`));
};

// ---- Offers

interface Offer {
  readonly offer_id: string;
  readonly credential_configuration_id: string;
  readonly status: string;
  readonly tx_code_required: boolean;
  readonly created_at: string;
  readonly expires_at: string;
  readonly ended_at: string | null;
  readonly error_details?: string | null;
  readonly claims_purged: boolean;
}

export const offersPage = (ctx: PageContext): void => {
  heading(ctx, 'Offers', h('p', {}, 'Credential offers, newest first.'));
  flowList<Offer>(ctx, {
    path: '/console/api/offers',
    statusLabel: 'Status',
    statuses: ['OFFER_CREATED', 'ISSUED', 'FAILED', 'EXPIRED'],
    caption: 'Offers',
    headings: ['Offer', 'Credential configuration', 'Status', 'Transaction code', 'Created'],
    row: (o) => [link(o.offer_id, `#/offers/${encodeURIComponent(o.offer_id)}`), o.credential_configuration_id, o.status, o.tx_code_required ? 'required' : 'no', o.created_at],
  });
};

interface CredentialStatus {
  readonly status: string;
}

export const offerPage = async (ctx: PageContext, offerId: string): Promise<void> => {
  heading(ctx, 'Offer', h('p', {}, link('Auditor view', `#/audit/${encodeURIComponent(`offer-${offerId}`)}`), ' · ', link('Back to Offers', '#/offers')));
  const errors = h('div');
  const details = h('div');
  const statusSection = h('section', { 'aria-labelledby': 'status-heading' });
  ctx.main.append(errors, details, statusSection);
  try {
    const offer = await get<Offer>(`/offers/${encodeURIComponent(offerId)}`);
    details.append(
      h('dl', { class: 'facts' },
        h('dt', {}, 'Offer'), h('dd', {}, offer.offer_id),
        h('dt', {}, 'Credential configuration'), h('dd', {}, offer.credential_configuration_id),
        h('dt', {}, 'Status'), h('dd', {}, offer.status),
        h('dt', {}, 'Transaction code'), h('dd', {}, offer.tx_code_required ? 'required' : 'not required'),
        h('dt', {}, 'Created'), h('dd', {}, offer.created_at),
        h('dt', {}, 'Expires'), h('dd', {}, offer.expires_at),
        h('dt', {}, 'Ended'), h('dd', {}, offer.ended_at ?? ''),
        h('dt', {}, 'Claims'), h('dd', {}, offer.claims_purged ? 'purged (the data key is destroyed)' : 'sealed, not shown')),
    );
  } catch (error) {
    showError(errors, error);
    return;
  }
  const statusErrors = h('div');
  const current = h('p', { 'aria-live': 'polite' });
  const set = (status: string) => async (): Promise<void> => {
    current.textContent = 'Saving…';
    try {
      const changed = await request<CredentialStatus>('PUT', `/offers/${encodeURIComponent(offerId)}/credential-status`, { status });
      current.textContent = `The issued credential is ${changed.body.status}.`;
      statusErrors.replaceChildren();
    } catch (error) {
      current.textContent = '';
      showError(statusErrors, error);
    }
  };
  statusSection.append(h('h2', { id: 'status-heading' }, 'Issued credential status'), current, statusErrors);
  try {
    const status = await get<CredentialStatus>(`/offers/${encodeURIComponent(offerId)}/credential-status`);
    current.textContent = `The issued credential is ${status.status}.`;
    statusSection.append(h('div', { class: 'actions' }, button('Revoke', set('revoked')), button('Suspend', set('suspended')), button('Reinstate', set('valid'))));
  } catch (error) {
    if (error instanceof ProblemError && (error.status === 409 || error.status === 404)) current.textContent = 'No credential with a status has been issued under this offer.';
    else showError(statusErrors, error);
  }
  ctx.main.append(liveTimeline(`offer-${offerId}`, ctx.signal), flowCallbacks(`offer-${offerId}`));
};

// ---- Deliveries

interface Attempt {
  readonly attempt: number;
  readonly attempted_at: string;
  readonly outcome: string;
  readonly http_status: number | null;
  readonly detail: string | null;
}
interface Delivery {
  readonly delivery_id: string;
  readonly event_id: string;
  readonly status: string;
  readonly source_stream: string;
  readonly state: string;
  readonly attempts: number;
  readonly abandon_reason: string | null;
  readonly recorded_at: string;
  readonly attempt_log: readonly Attempt[];
}

/**
 * Deliveries a page at a time (of one state, or of one flow's stream), each with its attempts and,
 * when abandoned, "Resend".
 */
const deliveryList = (filter: () => { readonly state?: string; readonly flow?: string }): HTMLElement & { readonly refresh: () => void } => {
  const container = h('div');
  const notices = h('div', { 'aria-live': 'polite' });
  const results = h('div');
  const show = (): void => {
    results.replaceChildren(
      pagedList<Delivery>(
        (after) => get<PageOf<Delivery>>(`/console/api/deliveries${query({ ...filter(), after })}`),
        (items) => table('Deliveries', ['Delivery', 'Callback', 'State', 'Attempts', 'Recorded', 'Action'], items.map((d) => [
          h('span', {}, link(d.delivery_id.slice(0, 12) + '…', `#/audit/${encodeURIComponent(`delivery-${d.delivery_id}`)}`), ' for ', link(d.source_stream.slice(0, 24) + '…', `#/audit/${encodeURIComponent(d.source_stream)}`)),
          d.status,
          d.abandon_reason ? `${d.state} (${d.abandon_reason})` : d.state,
          h('ol', { class: 'attempts' }, ...d.attempt_log.map((a) => h('li', {}, `${a.attempted_at}: ${a.outcome}${a.http_status === null ? '' : ` (HTTP ${a.http_status})`}${a.detail ? ` ${a.detail}` : ''}`))),
          d.recorded_at,
          d.state === 'abandoned' || d.state === 'undeliverable'
            ? button('Resend', async () => {
                try {
                  await request('POST', `/console/api/deliveries/${encodeURIComponent(d.delivery_id)}/resend`);
                  notices.replaceChildren(h('p', { class: 'ok' }, `Delivery ${d.delivery_id.slice(0, 12)}… is pending again: the deliverer attempts it next.`));
                  show();
                } catch (error) {
                  showError(notices, error);
                }
              })
            : '',
        ])),
      ),
    );
  };
  container.append(notices, results);
  show();
  return Object.assign(container, { refresh: show });
};

export const deliveriesPage = (ctx: PageContext): void => {
  heading(ctx, 'Deliveries', h('p', {}, 'Callbacks and DIDComm deliveries with their attempts, newest first. An abandoned one can be re-sent.'));
  const state = select('state', [['', 'Any state'], ...['pending', 'delivered', 'abandoned', 'undeliverable'].map((s) => [s, s] as const)]);
  const list = deliveryList(() => ({ state: state.value }));
  ctx.main.append(filterForm('Filter', [field('State', state)], () => list.refresh()), list);
};

/** A flow's callbacks and their attempts, with a button to look again. */
const flowCallbacks = (streamId: string): HTMLElement => {
  const list = deliveryList(() => ({ flow: streamId }));
  return h('section', { 'aria-labelledby': 'callbacks-heading' }, h('h2', { id: 'callbacks-heading' }, 'Callbacks'), list, button('Refresh callbacks', () => list.refresh()));
};
