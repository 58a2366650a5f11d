// The console's entry point: sign-in with an API key, the navigation the key's scopes allow, and
// the router from the location's fragment (which never holds the key) to a page.
import { get, ProblemError, signIn, signOut } from './api.js';
import { errorBox, h, link } from './dom.js';
import { auditPage, trustedListsPage } from './auditPages.js';
import { dashboardPage } from './dashboardPage.js';
import { identityPage } from './identityPage.js';
import { deliveriesPage, offerPage, offersPage, presentationPage, presentationsPage } from './flowPages.js';
import type { PageContext } from './pages.js';
import { resourcePage, resourcesPage } from './resourcePages.js';
import { supportRequestPage, supportRequestsPage } from './supportPages.js';

interface Tenant {
  readonly tenant_id: string;
  readonly name: string | null;
  readonly api_key: { readonly id: string; readonly scopes: readonly string[] };
}

/** Each page of the navigation and the scope it needs (none: any key). */
const NAVIGATION: readonly { readonly path: string; readonly title: string; readonly scope?: string }[] = [
  { path: '#/', title: 'Dashboard' },
  { path: '#/presentations', title: 'Presentation requests', scope: 'connector' },
  { path: '#/offers', title: 'Offers', scope: 'connector' },
  { path: '#/deliveries', title: 'Deliveries', scope: 'connector' },
  { path: '#/resources', title: 'Resources', scope: 'resources' },
  { path: '#/support-requests', title: 'Support requests', scope: 'resources' },
  { path: '#/identity', title: 'Identity', scope: 'admin' },
  { path: '#/trusted-lists', title: 'Trusted lists' },
  { path: '#/audit', title: 'Auditor view' },
];

const main = document.getElementById('main') as HTMLElement;
const nav = document.getElementById('nav') as HTMLElement;
const who = document.getElementById('who') as HTMLElement;

/** The resource kinds whose scope is not `resources`: their pages (a resource's history) need theirs. */
const KIND_SCOPES: Readonly<Record<string, string>> = { 'signing-keys': 'admin', 'credential-configurations': 'admin', verifier: 'admin', settings: 'admin' };
/** The kinds of which a tenant has one, at `/{kind}` (`#/resources/{kind}`). */
const SINGLETONS = new Set(['verifier', 'settings']);

let tenant: Tenant | undefined;
let leaving = new AbortController();

const allowed = (scope: string | undefined): boolean => scope === undefined || (tenant?.api_key.scopes.includes(scope) ?? false);

const route = async (): Promise<void> => {
  leaving.abort();
  leaving = new AbortController();
  if (!tenant) return showSignIn();
  const ctx: PageContext = { main, signal: leaving.signal, scopes: tenant.api_key.scopes };
  const [, section = '', id, more] = location.hash.replace(/^#\/?/, '#/').split('/').map(decodeURIComponent);
  for (const a of nav.querySelectorAll('a')) {
    if (a.getAttribute('href') === `#/${section}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const entry = NAVIGATION.find((n) => n.path === `#/${section}`);
  if (!entry) return dashboardPage(ctx);
  const resource = section === 'resources' && id !== undefined && (Boolean(more) || SINGLETONS.has(id));
  const scope = resource ? (KIND_SCOPES[id] ?? entry.scope) : entry.scope;
  if (!allowed(scope)) {
    main.replaceChildren(h('h1', {}, entry.title), errorBox('Forbidden', `This API key has no \`${scope}\` scope: the page is not shown.`));
    return;
  }
  switch (section) {
    case 'presentations':
      return id ? presentationPage(ctx, id) : presentationsPage(ctx);
    case 'offers':
      return id ? offerPage(ctx, id) : offersPage(ctx);
    case 'deliveries':
      return deliveriesPage(ctx);
    case 'resources':
      return resource ? resourcePage(ctx, id, more || undefined) : resourcesPage(ctx);
    case 'support-requests':
      return id ? supportRequestPage(ctx, id) : supportRequestsPage(ctx);
    case 'identity':
      return identityPage(ctx);
    case 'trusted-lists':
      return trustedListsPage(ctx);
    case 'audit':
      return auditPage(ctx, id);
    default:
      return dashboardPage(ctx);
  }
};

const showNavigation = (): void => {
  const list = h('ul');
  for (const entry of NAVIGATION) if (allowed(entry.scope)) list.append(h('li', {}, link(entry.title, entry.path)));
  nav.replaceChildren(list);
  nav.hidden = false;
  const out = h('button', { type: 'button', class: 'secondary' }, 'Sign out');
  out.addEventListener('click', () => {
    signOut();
    tenant = undefined;
    nav.hidden = true;
    who.replaceChildren();
    location.hash = '#/';
    void route();
  });
  who.replaceChildren(
    h('span', {}, 'Tenant ', h('strong', { id: 'tenant-name' }, tenant?.name ?? 'unnamed'), ' ', h('code', { id: 'tenant-id' }, tenant?.tenant_id ?? '')),
    h('span', {}, ' · Scopes: ', h('strong', { id: 'scopes' }, tenant?.api_key.scopes.join(', ') ?? '')),
    out,
  );
};

const showSignIn = (): void => {
  document.title = 'Sign in · EUDI connector console';
  const input = h('input', { id: 'api-key', type: 'password', name: 'api-key', autocomplete: 'off', required: true, spellcheck: 'false' });
  const errors = h('div');
  const form = h('form', { class: 'sign-in' },
    h('h1', {}, 'Sign in'),
    h('p', {}, 'The key stays in this page\'s memory only: it is sent in the Authorization header of the console\'s requests, never stored, and a reload forgets it.'),
    h('div', { class: 'field' }, h('label', { for: 'api-key' }, 'API key'), input),
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    errors);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      signIn(input.value);
      input.value = '';
      try {
        tenant = await get<Tenant>('/tenant');
      } catch (error) {
        signOut();
        const problem = error instanceof ProblemError ? error : new ProblemError(0, 'Error', String(error));
        errors.replaceChildren(errorBox(problem.title, problem.detail));
        input.focus();
        return;
      }
      showNavigation();
      await route();
    })();
  });
  main.replaceChildren(form);
  input.focus();
};

window.addEventListener('hashchange', () => void route());
void route();
