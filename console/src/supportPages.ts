// Support requests: the tenant's own requests to the platform operator (a data dump, a deletion, a
// rectification, anything else), filed here and read back with the state, the operator's note and
// every transition as the operator works them (ops support ...); a DATA_DUMP's archive downloads
// once it is ready. The routes are the resource API's (`/support-requests`).
import { download, get, request } from './api.js';
import { button, field, h, link, select, table } from './dom.js';
import { heading, type PageContext } from './pages.js';
import { pagedList, pagesOf, saveBlob, showError } from './views.js';

interface SupportRequest {
  readonly id: string;
  readonly type: string;
  readonly status: string;
  /** The tenant's own message, opened by the service; null once the request's data key is gone. */
  readonly message: unknown;
  readonly note: string | null;
  readonly created_at: string;
  readonly modified_at: string;
  readonly transitions: readonly { readonly status: string; readonly at: string; readonly note: string | null }[];
  readonly export: { readonly available: boolean; readonly expires_at: string | null; readonly files: number; readonly bytes: number; readonly manifest_sha256: string } | null;
  readonly erasure: { readonly resources: number; readonly data_keys: number; readonly blobs: number; readonly api_keys: number } | null;
}

const TYPES: readonly (readonly [string, string])[] = [
  ['DATA_DUMP', 'DATA_DUMP: an export of everything held'],
  ['DELETION', 'DELETION: erasure of all data'],
  ['RECTIFICATION', 'RECTIFICATION: a correction'],
  ['OTHER', 'OTHER'],
];

const sealedNotice = (): HTMLElement =>
  h('p', { class: 'notice' }, 'A request\'s message is shown to this tenant only: it is sealed at rest with the request\'s own data key, and the platform operator opens it to work the request.');

const pathOf = (id: string): string => `/support-requests/${encodeURIComponent(id)}`;

/** A new Idempotency-Key (36 characters of [a-f0-9-]): a retry of the same filing is recorded once. */
const idempotencyKey = (): string => crypto.randomUUID();

const fileForm = (): HTMLElement => {
  const type = select('type', TYPES);
  const message = h('textarea', { name: 'message', rows: '4', required: true });
  const status = h('div', { 'aria-live': 'polite' });
  // Kept until the service recorded the request: pressing the button again after a failure files it once.
  let key = idempotencyKey();
  const form = h('form', { class: 'file-request' },
    h('h2', { id: 'file-heading' }, 'File a request'),
    field('Type', type), field('Message', message),
    h('button', { type: 'submit', class: 'primary' }, 'File request'), status);
  form.setAttribute('aria-labelledby', 'file-heading');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      status.replaceChildren(h('p', {}, 'Filing…'));
      try {
        const filed = await request<{ id: string }>('POST', '/support-requests', { type: type.value, message: message.value }, { 'Idempotency-Key': key });
        key = idempotencyKey();
        location.hash = `#/support-requests/${encodeURIComponent(filed.body.id)}`;
      } catch (error) {
        showError(status, error);
      }
    })();
  });
  return form;
};

export const supportRequestsPage = async (ctx: PageContext): Promise<void> => {
  heading(ctx, 'Support requests', h('p', {}, 'Requests to the platform operator, oldest first: the operator works them and each change of state shows here with the operator\'s note.'), sealedNotice());
  const errors = h('div');
  ctx.main.append(errors);
  let all: readonly SupportRequest[];
  try {
    all = (await get<{ items: SupportRequest[] }>('/support-requests')).items;
  } catch (error) {
    showError(errors, error);
    return;
  }
  ctx.main.append(
    // The route answers every request of the tenant at once; the page shows them 25 at a time.
    pagedList<SupportRequest>(
      pagesOf(all),
      (items) => table('Support requests', ['Request', 'Type', 'State', 'Created', 'Last change'], items.map((r) => [
        link(r.id, `#/support-requests/${encodeURIComponent(r.id)}`), r.type, r.status, r.created_at, r.modified_at,
      ])),
    ),
    fileForm(),
  );
};

const exportSection = (request: SupportRequest): HTMLElement | null => {
  const archive = request.export;
  if (!archive) return null;
  const status = h('div', { 'aria-live': 'polite' });
  const section = h('section', { 'aria-labelledby': 'export-heading' }, h('h2', { id: 'export-heading' }, 'Export'));
  if (!archive.available) {
    section.append(h('p', {}, 'The archive was deleted at the end of its retention time; file a new DATA_DUMP request for a new one.'));
    return section;
  }
  section.append(
    h('p', {}, `A tar archive of ${archive.files} files (${archive.bytes} bytes), downloadable until ${archive.expires_at ?? 'its retention ends'}. Its manifest.json lists each file with its SHA-256; the manifest's own SHA-256 is `, h('code', {}, archive.manifest_sha256), '.'),
    button('Download export', async () => {
      status.replaceChildren(h('p', {}, 'Downloading…'));
      try {
        saveBlob(`export-${request.id}.tar`, await download(`${pathOf(request.id)}/export`));
        status.replaceChildren(h('p', { class: 'ok' }, 'Downloaded.'));
      } catch (error) {
        showError(status, error);
      }
    }, 'primary'),
    status,
  );
  return section;
};

const details = (r: SupportRequest): HTMLElement[] => [
  h('dl', { class: 'facts' },
    h('dt', {}, 'Type'), h('dd', {}, r.type),
    h('dt', {}, 'State'), h('dd', { id: 'support-state' }, r.status),
    h('dt', {}, 'Note'), h('dd', { id: 'support-note' }, r.note ?? '(none yet)'),
    h('dt', {}, 'Created'), h('dd', {}, r.created_at),
    h('dt', {}, 'Last change'), h('dd', {}, r.modified_at),
    h('dt', {}, 'Message'), h('dd', {}, r.message === null ? '(erased: the request\'s data key is destroyed)' : typeof r.message === 'string' ? r.message : JSON.stringify(r.message)),
    r.erasure ? h('dt', {}, 'Erased') : null,
    r.erasure ? h('dd', {}, `${r.erasure.resources} resources, ${r.erasure.data_keys} data keys, ${r.erasure.blobs} blob files, ${r.erasure.api_keys} API keys`) : null),
  table('Transitions', ['State', 'At', 'Note'], r.transitions.map((x) => [x.status, x.at, x.note ?? ''])),
];

export const supportRequestPage = async (ctx: PageContext, id: string): Promise<void> => {
  heading(ctx, 'Support request', h('p', {}, h('code', {}, id), ' · ', link('Auditor view', `#/audit/${encodeURIComponent(`supportrequest-${id}`)}`), ' · ', link('Back to Support requests', '#/support-requests')), sealedNotice());
  const errors = h('div');
  const shown = h('div');
  const load = async (): Promise<void> => {
    try {
      const current = await get<SupportRequest>(pathOf(id));
      shown.replaceChildren(...details(current));
      const archive = exportSection(current);
      if (archive) shown.append(archive);
      errors.replaceChildren();
    } catch (error) {
      showError(errors, error);
    }
  };
  ctx.main.append(errors, shown, button('Refresh', load));
  await load();
};
