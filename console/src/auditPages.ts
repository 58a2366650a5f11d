// Trusted lists, and the Auditor view: any stream replayed event by event.
import { get } from './api.js';
import { button, claimsNotice, field, h, table } from './dom.js';
import { eventItem, exportJson, showError, type StreamEvent } from './views.js';
import { heading, type PageContext, type TrustedLists } from './pages.js';

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
