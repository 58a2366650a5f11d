// One function per page of the console. Each renders into `main` and returns; what it starts
// (a live view) stops when `signal` aborts, which the router does on every navigation.
import { get, ProblemError, request } from './api.js';
import { button, claimsNotice, errorBox, field, h, link, select, table } from './dom.js';
import { eventItem, exportJson, liveTimeline, pagedList, pagesOf, showError, type PageOf, type StreamEvent } from './views.js';

export interface PageContext {
  readonly main: HTMLElement;
  readonly signal: AbortSignal;
  readonly scopes: readonly string[];
}

export const heading = (ctx: PageContext, title: string, ...intro: (Node | string)[]): void => {
  document.title = `${title} · EUDI connector console`;
  const h1 = h('h1', { tabindex: '-1' }, title);
  ctx.main.replaceChildren(h1, ...intro);
  h1.focus();
};

const query = (params: Record<string, string | undefined>): string => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) search.set(name, value);
  const text = search.toString();
  return text ? `?${text}` : '';
};

/** `datetime-local` input (local time) to an instant the API takes, or undefined when empty. */
const instant = (input: HTMLInputElement): string | undefined => (input.value ? new Date(input.value).toISOString() : undefined);

const filterForm = (legend: string, controls: readonly HTMLElement[], apply: () => void): HTMLElement => {
  const form = h('form', { class: 'filters' }, h('fieldset', {}, h('legend', {}, legend), ...controls, h('button', { type: 'submit', class: 'primary' }, 'Apply filters')));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    apply();
  });
  return form;
};

// ---- Dashboard

interface OutcomeCount {
  readonly bucket: string;
  readonly status: string;
  readonly count: number;
}
interface Dashboard {
  readonly now: string;
  readonly presentations_last_hour: readonly OutcomeCount[];
  readonly presentations_last_day: readonly OutcomeCount[];
  readonly deliveries: Record<string, number>;
  readonly certificates: readonly { readonly role: string; readonly subject: string; readonly not_after: string; readonly expires_soon: boolean }[];
}
interface TrustedList {
  readonly source: string;
  readonly url: string;
  readonly territory?: string;
  readonly sequenceNumber?: number;
  readonly issuedAt?: string;
  readonly nextUpdate?: string;
  readonly fetchedAt?: string;
  readonly state: string;
  readonly lastFailure?: string;
  readonly digest?: string;
  readonly entities?: Record<string, number>;
}
interface TrustedLists {
  readonly mode: 'static' | 'lists';
  readonly lists: readonly TrustedList[];
}

const SVG = 'http://www.w3.org/2000/svg';

/** Sessions ended per bucket as bars (an SVG with a text alternative), the exact figures in the table beside it. */
const chart = (title: string, counts: readonly OutcomeCount[], buckets: readonly string[]): HTMLElement => {
  const totals = new Map<string, number>();
  for (const c of counts) totals.set(c.bucket, (totals.get(c.bucket) ?? 0) + c.count);
  const max = Math.max(1, ...totals.values());
  const width = 600;
  const height = 120;
  const bar = width / buckets.length;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('role', 'img');
  const sum = [...totals.values()].reduce((a, b) => a + b, 0);
  svg.setAttribute('aria-label', `${title}: ${sum} sessions ended in all.`);
  svg.setAttribute('class', 'chart');
  buckets.forEach((bucket, index) => {
    const value = totals.get(bucket) ?? 0;
    const rect = document.createElementNS(SVG, 'rect');
    const barHeight = (value / max) * (height - 4);
    rect.setAttribute('x', String(index * bar));
    rect.setAttribute('y', String(height - barHeight));
    rect.setAttribute('width', String(Math.max(1, bar - 1)));
    rect.setAttribute('height', String(barHeight));
    rect.setAttribute('class', 'bar');
    const tip = document.createElementNS(SVG, 'title');
    tip.textContent = `${bucket}: ${value}`;
    rect.append(tip);
    svg.append(rect);
  });
  const byStatus = new Map<string, number>();
  for (const c of counts) byStatus.set(c.status, (byStatus.get(c.status) ?? 0) + c.count);
  return h('figure', {}, h('figcaption', {}, title), svg, table(`${title} by outcome`, ['Outcome', 'Sessions'], [...byStatus].map(([status, n]) => [status, String(n)])));
};

const lastBuckets = (now: Date, count: number, stepMs: number, length: number): string[] =>
  Array.from({ length: count }, (_, i) => new Date(now.getTime() - (count - 1 - i) * stepMs).toISOString().slice(0, length));

export const dashboardPage = async (ctx: PageContext): Promise<void> => {
  heading(ctx, 'Dashboard');
  const errors = h('div');
  ctx.main.append(errors);
  try {
    if (ctx.scopes.includes('connector')) {
      const figures = await get<Dashboard>('/console/api/dashboard');
      const now = new Date(figures.now);
      const pending = figures.deliveries['pending'] ?? 0;
      const abandoned = (figures.deliveries['abandoned'] ?? 0) + (figures.deliveries['undeliverable'] ?? 0);
      ctx.main.append(
        h('section', {}, h('h2', {}, 'Flows'),
          chart('Presentation requests ended per minute, last hour', figures.presentations_last_hour, lastBuckets(now, 60, 60_000, 16)),
          chart('Presentation requests ended per hour, last day', figures.presentations_last_day, lastBuckets(now, 24, 3_600_000, 13))),
        h('section', {}, h('h2', {}, 'Callbacks'),
          h('ul', {}, h('li', {}, `Pending callbacks: ${pending}`), h('li', {}, `Abandoned deliveries: ${abandoned} `, link('see Deliveries', '#/deliveries')))),
        h('section', {}, h('h2', {}, 'Keys and certificates'),
          ...figures.certificates.filter((c) => c.expires_soon).map((c) => h('p', { class: 'warning', role: 'status' }, `Warning: the ${c.role} certificate expires on ${c.not_after}.`)),
          table('Certificates the connector presents', ['Role', 'Subject', 'Expires', 'Within 30 days'], figures.certificates.map((c) => [c.role, c.subject, c.not_after, c.expires_soon ? 'yes' : 'no']))),
      );
    }
    const lists = await get<TrustedLists>('/console/api/trusted-lists');
    const stale = lists.lists.filter((l) => l.state !== 'current');
    ctx.main.append(
      h('section', {}, h('h2', {}, 'Trusted lists'),
        h('p', {}, lists.mode === 'static' ? 'Static trust anchors: no trusted list is followed.' : `${lists.lists.length} lists followed, ${stale.length} not current. `, link('see Trusted lists', '#/trusted-lists'))),
    );
  } catch (error) {
    showError(errors, error);
  }
};

// ---- Presentation requests

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

// ---- Resources

interface Envelope {
  readonly id: string;
  readonly revision: number;
  readonly etag: string;
  readonly created_at: string;
  readonly modified_at: string;
  readonly deleted_at: string | null;
  readonly annotations: Record<string, string>;
  readonly labels: Record<string, string>;
  readonly data: Record<string, unknown>;
}

const KINDS: readonly (readonly [string, string])[] = [
  ['schemas', 'Schemas'],
  ['drafts', 'Drafts'],
  ['credentials', 'Credentials'],
  ['files', 'Files'],
  ['didcomm-messages', 'DIDComm messages'],
];

/** Members of a resource's data that hold claim values: never shown. */
const VALUE_MEMBERS = new Set(['values', 'claims', 'credentialSubject', 'credential_subject', 'vc']);

const shownData = (name: string, value: unknown): string => (VALUE_MEMBERS.has(name) ? '[claim values: not shown]' : JSON.stringify(value));

/** The resource API's envelope filters the search form offers (the specification's `filter` items, ANDed). */
const envelopeFilter = (form: {
  readonly labelKey: string;
  readonly labelValue: string;
  readonly annotationKey: string;
  readonly annotationValue: string;
  readonly from: string | undefined;
  readonly until: string | undefined;
}): unknown[] => {
  const filter: unknown[] = [];
  if (form.labelKey) filter.push({ labels: [{ operator: 'EQUAL', key: form.labelKey, value: form.labelValue }] });
  if (form.annotationKey) filter.push({ annotations: [{ operator: 'EQUAL', key: form.annotationKey, value: form.annotationValue }] });
  if (form.from || form.until) {
    filter.push({ modified_at: { operator: 'BETWEEN', left: form.from ?? '1970-01-01T00:00:00Z', right: form.until ?? '9999-12-31T23:59:59Z' } });
  }
  return filter;
};

export const resourcesPage = (ctx: PageContext): void => {
  heading(ctx, 'Resources', h('p', {}, 'Search a kind by label, annotation and time of change; open a resource for its history, any revision, and a comparison of two.'));
  const kind = select('kind', KINDS);
  const text = (name: string): HTMLInputElement => h('input', { type: 'text', name, autocomplete: 'off' });
  const [labelKey, labelValue, annotationKey, annotationValue] = [text('label-key'), text('label-value'), text('annotation-key'), text('annotation-value')];
  const from = h('input', { type: 'datetime-local', name: 'from' });
  const until = h('input', { type: 'datetime-local', name: 'until' });
  const order = select('order', [['DESC', 'Newest change first'], ['ASC', 'Oldest change first']]);
  const results = h('div');
  const show = (): void => {
    const chosen = kind.value;
    const body = {
      filter: envelopeFilter({ labelKey: labelKey.value, labelValue: labelValue.value, annotationKey: annotationKey.value, annotationValue: annotationValue.value, from: instant(from), until: instant(until) }),
      sort: [{ field: 'MODIFIED_AT', order: order.value }],
    };
    results.replaceChildren(
      pagedList<Envelope>(
        async (cursor) => {
          const page = (await request<{ items: Envelope[]; next_cursor?: string }>('POST', `/${chosen}/search${query({ cursor })}`, body)).body;
          return { items: page.items, next: page.next_cursor ?? null };
        },
        (items) => table('Resources', ['Resource', 'Revision', 'Labels', 'Modified', 'Deleted'], items.map((r) => [
          link(r.id, `#/resources/${chosen}/${encodeURIComponent(r.id)}`), String(r.revision), JSON.stringify(r.labels), r.modified_at, r.deleted_at ?? '',
        ])),
      ),
    );
  };
  ctx.main.append(
    filterForm('Search', [
      field('Kind', kind), field('Label key', labelKey), field('Label value', labelValue), field('Annotation key', annotationKey), field('Annotation value', annotationValue),
      field('Changed from', from), field('Changed until', until), field('Order', order),
    ], show),
    results,
  );
  show();
};

const envelopeFields = (e: Envelope): Map<string, string> => {
  const fields = new Map<string, string>([
    ['revision', String(e.revision)],
    ['modified_at', e.modified_at],
    ['deleted_at', e.deleted_at ?? ''],
  ]);
  for (const [k, v] of Object.entries(e.labels)) fields.set(`labels.${k}`, v);
  for (const [k, v] of Object.entries(e.annotations)) fields.set(`annotations.${k}`, v);
  for (const [k, v] of Object.entries(e.data)) fields.set(`data.${k}`, shownData(k, v));
  return fields;
};

const revisionView = (e: Envelope): HTMLElement =>
  table(`Revision ${e.revision}`, ['Field', 'Value'], [...envelopeFields(e)].map(([k, v]) => [k, v]));

/** Two revisions field by field: each field of either, its value in both, and whether it changed. */
export const comparison = (a: Envelope, b: Envelope): HTMLElement => {
  const left = envelopeFields(a);
  const right = envelopeFields(b);
  const names = [...new Set([...left.keys(), ...right.keys()])].sort();
  return table(`Revision ${a.revision} compared with revision ${b.revision}`, ['Field', `Revision ${a.revision}`, `Revision ${b.revision}`, 'Changed'], names.map((name) => {
    const x = left.get(name);
    const y = right.get(name);
    return [name, x ?? '(absent)', y ?? '(absent)', x === y ? 'no' : 'yes'];
  }));
};

export const resourcePage = async (ctx: PageContext, kind: string, id: string): Promise<void> => {
  const base = `/${kind}/${encodeURIComponent(id)}`;
  heading(ctx, 'Resource', h('p', {}, h('code', {}, `${kind}/${id}`), ' · ', link('Auditor view', `#/audit/${encodeURIComponent(`${kind === 'didcomm-messages' ? 'didcomm' : kind.replace(/s$/, '')}-${id}`)}`), ' · ', link('Back to Resources', '#/resources')));
  const errors = h('div');
  ctx.main.append(errors);
  let history: readonly Envelope[];
  let latest: { body: Envelope; etag: string | null };
  try {
    latest = await request<Envelope>('GET', base);
    history = (await get<{ items: Envelope[] }>(`${base}/history`)).items;
  } catch (error) {
    showError(errors, error);
    return;
  }
  const shown = h('div');
  const revisions = history.map((e) => [String(e.revision), `Revision ${e.revision} (${e.modified_at})`] as const);
  const pick = select('revision', revisions, String(latest.body.revision));
  const fromRevision = select('from', revisions, String(history[0]?.revision ?? 1));
  const toRevision = select('to', revisions, String(latest.body.revision));
  const compared = h('div');
  const showRevision = async (): Promise<void> => {
    try {
      shown.replaceChildren(revisionView(await get<Envelope>(`${base}/revisions/${pick.value}`)));
    } catch (error) {
      showError(shown, error);
    }
  };
  const compare = async (): Promise<void> => {
    try {
      const [a, b] = await Promise.all([get<Envelope>(`${base}/revisions/${fromRevision.value}`), get<Envelope>(`${base}/revisions/${toRevision.value}`)]);
      compared.replaceChildren(comparison(a, b));
    } catch (error) {
      showError(compared, error);
    }
  };
  // Labels and annotations, written with If-Match: the revision shown here, or nothing.
  let etag = latest.etag ?? latest.body.etag;
  const labels = h('textarea', { name: 'labels', rows: '3' });
  labels.value = JSON.stringify(latest.body.labels);
  const annotations = h('textarea', { name: 'annotations', rows: '3' });
  annotations.value = JSON.stringify(latest.body.annotations);
  const editStatus = h('div', { 'aria-live': 'polite' });
  const save = (member: 'labels' | 'annotations', input: HTMLTextAreaElement) => async (): Promise<void> => {
    let value: unknown;
    try {
      value = JSON.parse(input.value);
    } catch {
      editStatus.replaceChildren(errorBox('Invalid JSON', `The ${member} must be a JSON object of strings, such as {"team": "ops"}.`));
      return;
    }
    try {
      const written = await request<Envelope>('PUT', `${base}/${member}`, { [member]: value }, { 'If-Match': etag });
      etag = written.etag ?? written.body.etag;
      editStatus.replaceChildren(h('p', { class: 'ok' }, `Saved as revision ${written.body.revision}.`));
    } catch (error) {
      if (error instanceof ProblemError && error.status === 412) {
        const current = await get<Envelope>(base);
        editStatus.replaceChildren(
          errorBox(error.title, error.detail),
          h('p', {}, `Nothing was overwritten. The current version is revision ${current.revision} (open this page again to edit it):`),
          revisionView(current),
        );
      } else {
        showError(editStatus, error);
      }
    }
  };
  ctx.main.append(
    h('section', {}, h('h2', {}, 'History'),
      // The history route answers every revision at once; the page shows them 25 at a time.
      pagedList<Envelope>(
        pagesOf(history),
        (items) => table('Revisions', ['Revision', 'Modified', 'Deleted'], items.map((e) => [String(e.revision), e.modified_at, e.deleted_at ?? ''])),
      ),
      h('div', { class: 'row' }, field('Revision to show', pick), button('Show revision', showRevision)), shown),
    h('section', {}, h('h2', {}, 'Compare revisions'),
      h('div', { class: 'row' }, field('From revision', fromRevision), field('To revision', toRevision), button('Compare', compare, 'primary')), compared),
    h('section', {}, h('h2', {}, 'Labels and annotations'),
      h('p', {}, 'Saved with If-Match: if someone changed the resource since it was loaded, nothing is overwritten and the current version is shown.'),
      field('Labels (JSON)', labels), button('Save labels', save('labels', labels), 'primary'),
      field('Annotations (JSON)', annotations), button('Save annotations', save('annotations', annotations), 'primary'),
      editStatus),
    claimsNotice(),
  );
  await showRevision();
};

// ---- Trusted lists

export const trustedListsPage = async (ctx: PageContext): Promise<void> => {
  heading(ctx, 'Trusted lists');
  const errors = h('div');
  ctx.main.append(errors);
  try {
    const lists = await get<TrustedLists>('/console/api/trusted-lists');
    if (lists.mode === 'static') {
      ctx.main.append(h('p', {}, 'This connector trusts static anchors (X509_TRUST_RESOLUTION_MODE=static): it follows no trusted list.'));
      return;
    }
    ctx.main.append(
      table('Trusted lists', ['Source', 'List', 'Territory', 'Sequence number', 'Issued', 'Last fetch', 'Next update', 'State', 'Digest', 'Entities by category', 'Last failure'], lists.lists.map((l) => [
        l.source, l.url, l.territory ?? '', l.sequenceNumber === undefined ? '' : String(l.sequenceNumber), l.issuedAt ?? '', l.fetchedAt ?? '', l.nextUpdate ?? '', l.state,
        l.digest ? h('code', {}, l.digest.slice(0, 16) + '…') : '',
        Object.entries(l.entities ?? {}).map(([category, n]) => `${category}: ${n}`).join(', '),
        l.lastFailure ?? '',
      ])),
    );
  } catch (error) {
    showError(errors, error);
  }
};

// ---- Auditor view

export const auditPage = async (ctx: PageContext, streamId: string | undefined): Promise<void> => {
  heading(ctx, 'Auditor view', h('p', {}, 'Replay any stream of this tenant event by event, with who caused each event and in answer to which request.'), claimsNotice());
  const name = h('input', { type: 'text', name: 'stream', autocomplete: 'off', value: streamId ?? '', placeholder: 'presentation-…' });
  const form = h('form', { class: 'filters' }, field('Stream name', name), h('button', { type: 'submit', class: 'primary' }, 'Open stream'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    location.hash = `#/audit/${encodeURIComponent(name.value.trim())}`;
  });
  ctx.main.append(form);
  if (!streamId) return;
  const errors = h('div');
  ctx.main.append(errors);
  let events: readonly StreamEvent[];
  try {
    events = (await get<{ events: StreamEvent[] }>(`/console/api/streams/${encodeURIComponent(streamId)}`)).events;
  } catch (error) {
    showError(errors, error);
    return;
  }
  let index = 0;
  const position = h('p', { 'aria-live': 'polite' });
  const current = h('ol', { class: 'timeline' });
  const metadata = h('pre', { class: 'metadata' });
  const render = (): void => {
    const event = events[index]!;
    position.textContent = `Event ${index + 1} of ${events.length}`;
    current.replaceChildren(eventItem(event));
    current.setAttribute('start', String(index + 1));
    metadata.textContent = JSON.stringify({ id: event.id, position: event.position, metadata: event.metadata }, null, 2);
    previous.disabled = index === 0;
    next.disabled = index === events.length - 1;
  };
  const previous = button('Previous event', () => {
    index = Math.max(0, index - 1);
    render();
  });
  const next = button('Next event', () => {
    index = Math.min(events.length - 1, index + 1);
    render();
  });
  ctx.main.append(
    h('section', {}, h('h2', {}, streamId), position, current, h('h3', {}, 'Metadata'), metadata,
      h('div', { class: 'actions' }, previous, next, button('Export JSON', () => exportJson(`${streamId}.json`, { stream: streamId, events })))),
  );
  render();
};
