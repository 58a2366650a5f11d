// Resources: search by kind, a resource's revisions, two revisions compared, annotations and labels edited under If-Match.
import { get, ProblemError, request } from './api.js';
import { button, claimsNotice, errorBox, field, h, link, select, table } from './dom.js';
import { pagedList, pagesOf, showError } from './views.js';
import { heading, query, instant, filterForm, type PageContext } from './pages.js';

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

/** The stream category of a kind's resources, where it is not the kind's path in the singular without hyphens. */
const STREAM_CATEGORIES: Readonly<Record<string, string>> = { 'didcomm-messages': 'didcomm', verifier: 'tenantverifier', settings: 'tenantsettings' };

const streamOf = (kind: string, id: string): string => `${STREAM_CATEGORIES[kind] ?? kind.replace(/s$/, '').replace(/-/g, '')}-${id}`;

/** A resource's page; `id` undefined for the tenant's singleton of the kind (`/verifier`, `/settings`). */
export const resourcePage = async (ctx: PageContext, kind: string, id: string | undefined): Promise<void> => {
  const base = id === undefined ? `/${kind}` : `/${kind}/${encodeURIComponent(id)}`;
  const auditor = h('span');
  heading(ctx, 'Resource', h('p', {}, h('code', {}, base.slice(1)), ' · ', auditor, ' · ', link('Back to Resources', '#/resources')));
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
  auditor.append(link('Auditor view', `#/audit/${encodeURIComponent(streamOf(kind, latest.body.id))}`));
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
