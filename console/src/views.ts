// Pieces several pages share: a paged list, an event timeline (live or replayed), a JSON export.
import { follow, ProblemError } from './api.js';
import { button, claimsNotice, errorBox, h } from './dom.js';

export interface PageOf<T> {
  readonly items: readonly T[];
  readonly next: string | null;
}

export const showError = (where: HTMLElement, error: unknown): void => {
  const problem = error instanceof ProblemError ? error : new ProblemError(0, 'Error', error instanceof Error ? error.message : String(error));
  where.replaceChildren(errorBox(problem.title, problem.detail));
};

/**
 * A list a page at a time: `load(cursor)` fetches one, `render` draws it. "Next page" follows the
 * page's cursor, "Previous page" goes back through the cursors seen, "First page" starts over.
 */
export const pagedList = <T>(load: (cursor: string | undefined) => Promise<PageOf<T>>, render: (items: readonly T[]) => HTMLElement): HTMLElement => {
  const container = h('div', { class: 'paged' });
  const body = h('div');
  const status = h('p', { class: 'page-status', 'aria-live': 'polite' });
  const errors = h('div');
  const cursors: (string | undefined)[] = [undefined];
  let next: string | null = null;
  const previous = button('Previous page', () => go(cursors.length - 2));
  const following = button('Next page', () => go(cursors.length));
  const first = button('First page', () => go(0));
  const go = async (index: number): Promise<void> => {
    const cursor = index === cursors.length ? next ?? undefined : cursors[index];
    status.textContent = 'Loading…';
    try {
      const page = await load(cursor);
      if (index === cursors.length) cursors.push(cursor);
      else cursors.length = index + 1;
      next = page.next;
      body.replaceChildren(render(page.items));
      errors.replaceChildren();
      status.textContent = `Page ${cursors.length}${page.next ? '' : ' (last page)'}`;
    } catch (error) {
      status.textContent = '';
      showError(errors, error);
    }
    previous.disabled = cursors.length <= 1;
    following.disabled = next === null;
    first.disabled = cursors.length <= 1;
  };
  container.append(errors, body, h('div', { class: 'pager' }, first, previous, following, status));
  void go(0);
  return container;
};

/** `load` for pagedList over a list already fetched whole: `size` items a page, the cursor the offset. */
export const pagesOf =
  <T>(all: readonly T[], size = 25) =>
  async (cursor: string | undefined): Promise<PageOf<T>> => {
    const start = Number(cursor ?? 0);
    return { items: all.slice(start, start + size), next: start + size < all.length ? String(start + size) : null };
  };

export interface StreamEvent {
  readonly revision: number;
  readonly position: string;
  readonly id: string;
  readonly type: string;
  readonly created: string;
  readonly metadata: unknown;
  readonly data: unknown;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** The event's facts as a definition list: each data member, sealed ones as the service marked them. */
export const facts = (data: unknown): HTMLElement => {
  const list = h('dl', { class: 'facts' });
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    for (const [name, value] of Object.entries(data as Record<string, unknown>)) list.append(h('dt', {}, name), h('dd', {}, text(value)));
  }
  return list;
};

/** Who caused the event and, where recorded, in answer to which command. */
const causeOf = (metadata: unknown): string => {
  const m = (metadata && typeof metadata === 'object' ? metadata : {}) as { actor?: unknown; command?: unknown };
  const actor = m.actor === undefined ? 'unknown' : String(m.actor);
  return m.command === undefined ? actor : `${actor} (command ${String(m.command)})`;
};

export const eventItem = (event: StreamEvent): HTMLElement =>
  h(
    'li',
    { class: 'event' },
    h('p', { class: 'event-head' }, h('span', { class: 'event-type' }, event.type), ` #${event.revision} at `, h('time', { datetime: event.created }, event.created), ` by ${causeOf(event.metadata)}`),
    facts(event.data),
  );

/** Saves `blob` as a file named `name` through a blob URL (no key, nothing of it, in any URL). */
export const saveBlob = (name: string, blob: Blob): void => {
  const url = URL.createObjectURL(blob);
  const anchor = h('a', { href: url, download: name });
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
};

/** Downloads `value` as a JSON file; nothing leaves the browser. */
export const exportJson = (name: string, value: unknown): void => saveBlob(name, new Blob([JSON.stringify(value, null, 2)], { type: 'application/json' }));

/**
 * A stream's timeline, live: every event so far, then each new one as the service appends it,
 * until `signal` aborts (the user leaves the page).
 */
export const liveTimeline = (streamId: string, signal: AbortSignal): HTMLElement => {
  const events: StreamEvent[] = [];
  const list = h('ol', { class: 'timeline', 'aria-live': 'polite', 'aria-label': 'Timeline' });
  const status = h('p', { class: 'live-status' }, 'Connecting…');
  const errors = h('div');
  const exporter = button('Export JSON', () => exportJson(`${streamId}.json`, { stream: streamId, events }));
  void follow(
    `/console/api/streams/${encodeURIComponent(streamId)}/live`,
    (data) => {
      const event = data as StreamEvent;
      events.push(event);
      list.append(eventItem(event));
      status.textContent = `Live: ${events.length} event${events.length === 1 ? '' : 's'}, updating as the flow goes on.`;
    },
    signal,
  ).catch((error: unknown) => {
    if (signal.aborted) return;
    status.textContent = 'Not live.';
    showError(errors, error);
  });
  return h('section', { 'aria-labelledby': 'timeline-heading' }, h('h2', { id: 'timeline-heading' }, 'Timeline'), claimsNotice(), status, errors, list, exporter);
};
