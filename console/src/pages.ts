// What every page of the console shares: its context, its heading, and the lists' filter form
// and query string. The pages live one module per area (dashboardPage.ts, flowPages.ts,
// resourcePages.ts, supportPages.ts, auditPages.ts); each renders into `main` and returns, and
// what it starts (a live view) stops when `signal` aborts, which the router does on every navigation.
import { h } from './dom.js';

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

export const query = (params: Record<string, string | undefined>): string => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) search.set(name, value);
  const text = search.toString();
  return text ? `?${text}` : '';
};

/** `datetime-local` input (local time) to an instant the API takes, or undefined when empty. */
export const instant = (input: HTMLInputElement): string | undefined => (input.value ? new Date(input.value).toISOString() : undefined);

export const filterForm = (legend: string, controls: readonly HTMLElement[], apply: () => void): HTMLElement => {
  const form = h('form', { class: 'filters' }, h('fieldset', {}, h('legend', {}, legend), ...controls, h('button', { type: 'submit', class: 'primary' }, 'Apply filters')));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    apply();
  });
  return form;
};

/** What GET /console/api/trusted-lists answers: the Dashboard and the Trusted lists page read it. */
export interface TrustedList {
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
export interface TrustedLists {
  readonly mode: 'static' | 'lists';
  readonly lists: readonly TrustedList[];
}
