// Identity: what the signed-in tenant shows wallets as its own (issue 38). Its signing keys by role
// with their state and certificate (from GET /console/api/signing-keys, which reads the chains),
// the CSR of a pending key to copy, Activate for a ready key (POST /signing-keys/{id}/activate
// with If-Match: a 412 shows the conflict and that nothing changed), its credential
// configurations, its registration as a relying party (PUT /verifier) and its settings, each with
// a link to its history on the Resources page.
import { get, ProblemError, request } from './api.js';
import { button, errorBox, field, h, link, table } from './dom.js';
import { showError } from './views.js';
import { heading, type PageContext } from './pages.js';

interface ShownCertificate {
  readonly subject: string;
  readonly issuer: string;
  readonly not_before: string;
  readonly not_after: string;
  readonly expires_soon: boolean;
}
interface SigningKey {
  readonly id: string;
  readonly revision: number;
  readonly etag: string;
  readonly created_at: string;
  readonly deleted_at: string | null;
  readonly role: string | null;
  readonly state: string | null;
  readonly csr: string | null;
  readonly activated_at: string | null;
  readonly retired_at: string | null;
  readonly replaced_by: string | null;
  readonly certificate: ShownCertificate | null;
}
interface Registration {
  readonly enforce_registration: boolean;
  readonly subject: string | null;
  readonly name: string | null;
  readonly signer: string | null;
  readonly not_after: string | null;
  readonly expires_soon: boolean;
  readonly credentials: number;
}
interface Envelope {
  readonly id: string;
  readonly revision: number;
  readonly data: Record<string, unknown>;
}

const ROLES: readonly (readonly [string, string, string])[] = [
  ['access', 'Access keys', 'They sign the request objects of the tenant\'s presentation requests.'],
  ['issuer', 'Issuer keys', 'They sign the credentials and status lists the tenant issues.'],
];

/** Where a resource's history is: the Resources page of its kind. */
const historyLink = (kind: string, id: string, text = 'History'): HTMLAnchorElement => link(text, `#/resources/${kind}/${encodeURIComponent(id)}`);

const shortId = (id: string): string => `${id.slice(0, 8)}…`;

/** A key's certificate expiring soon is a warning while the key signs or may sign (ready, active). */
const warns = (key: SigningKey): boolean => (key.state === 'active' || key.state === 'ready') && key.deleted_at === null && (key.certificate?.expires_soon ?? false);

const stateText = (key: SigningKey): string => {
  if (key.deleted_at !== null) return `${key.state ?? ''} (deleted)`;
  if (key.state === 'retired') return `retired ${key.retired_at ?? ''}${key.replaced_by ? ` (replaced by ${shortId(key.replaced_by)})` : ''}`;
  if (key.state === 'active') return `active since ${key.activated_at ?? ''}`;
  return key.state ?? '';
};

/** The CSR of a pending key in a read-only field, with a button that copies it. */
const csrField = (key: SigningKey): HTMLElement => {
  const text = h('textarea', { name: `csr-${key.id}`, rows: '8', readonly: true, spellcheck: 'false', class: 'pem' });
  text.value = key.csr ?? '';
  const copied = h('span', { 'aria-live': 'polite' });
  const copy = async (): Promise<void> => {
    text.select();
    try {
      await navigator.clipboard.writeText(text.value);
      copied.textContent = 'Copied.';
    } catch {
      copied.textContent = 'Selected: copy it with the keyboard (the browser refused the clipboard).';
    }
  };
  return h('div', { class: 'csr' }, field(`CSR of the ${key.role ?? ''} key ${key.id}`, text), button('Copy CSR', copy), copied);
};

export const identityPage = async (ctx: PageContext): Promise<void> => {
  heading(ctx, 'Identity', h('p', {}, 'What this tenant shows wallets as its own: its signing keys and their certificates, and the credentials it issues.'));
  const keysStatus = h('div', { 'aria-live': 'polite' });
  const keys = h('div');
  const configurations = h('div');
  const registered = h('div');

  const activate = (key: SigningKey) => async (): Promise<void> => {
    try {
      const activated = await request<Envelope>('POST', `/signing-keys/${encodeURIComponent(key.id)}/activate`, undefined, { 'If-Match': key.etag });
      keysStatus.replaceChildren(h('p', { class: 'ok' }, `The ${key.role ?? ''} key ${key.id} is active (revision ${activated.body.revision}); the key it replaces is retired.`));
      await showKeys();
    } catch (error) {
      if (error instanceof ProblemError && error.status === 412) {
        const current = await get<Envelope>(`/signing-keys/${encodeURIComponent(key.id)}`);
        keysStatus.replaceChildren(
          errorBox(error.title, error.detail),
          h('p', {}, `Nothing was changed: the key changed since this page loaded it. Its current version is revision ${current.revision}, state ${String(current.data['state'])}. Refresh the keys to act on it.`),
        );
      } else {
        showError(keysStatus, error);
      }
    }
  };

  const roleSection = ([role, title, purpose]: readonly [string, string, string], all: readonly SigningKey[]): HTMLElement => {
    const mine = all.filter((k) => k.role === role);
    const active = mine.some((k) => k.state === 'active' && k.deleted_at === null);
    return h('section', {}, h('h3', {}, title), h('p', {}, purpose, active ? '' : ` The tenant has no active ${role} key: the deployment's serves it.`),
      ...mine.filter(warns).map((k) => h('p', { class: 'warning', role: 'status' }, `Warning: the certificate of the ${k.state ?? ''} ${role} key ${k.id} expires on ${k.certificate?.not_after ?? ''}.`)),
      table(title, ['Key', 'State', 'Certificate subject', 'Certificate issuer', 'Valid from', 'Valid until', 'Action'], mine.map((k) => [
        h('span', {}, h('code', {}, k.id), ' ', historyLink('signing-keys', k.id)),
        stateText(k),
        k.certificate?.subject ?? 'none yet: certify the CSR',
        k.certificate?.issuer ?? '',
        k.certificate?.not_before ?? '',
        k.certificate?.not_after ?? '',
        k.state === 'ready' && k.deleted_at === null ? button(`Activate ${shortId(k.id)}`, activate(k), 'primary') : '',
      ])),
      ...mine.filter((k) => k.state === 'pending' && k.deleted_at === null && k.csr).map(csrField));
  };

  const showKeys = async (): Promise<void> => {
    try {
      const { items } = await get<{ items: SigningKey[] }>('/console/api/signing-keys');
      keys.replaceChildren(...ROLES.map((role) => roleSection(role, items)));
    } catch (error) {
      showError(keys, error);
    }
  };

  /** The registration (GET /console/api/registration reads its certificate) and the settings, each with its revision and history. */
  const showRegistration = async (): Promise<void> => {
    try {
      const [{ registration }, verifier, settings] = await Promise.all([
        get<{ registration: Registration | null }>('/console/api/registration'),
        get<Envelope>('/verifier'),
        get<Envelope>('/settings'),
      ]);
      registered.replaceChildren(
        ...(registration?.expires_soon ? [h('p', { class: 'warning', role: 'status' }, `Warning: the registration certificate expires on ${registration.not_after ?? ''}.`)] : []),
        registration
          ? table('Registration certificate', ['Registers', 'Signed by', 'Valid until', 'Credential types', 'Enforced'], [[
              registration.name ? `${registration.name} (${registration.subject ?? ''})` : registration.subject ?? '',
              registration.signer ?? '',
              registration.not_after ?? '',
              String(registration.credentials),
              registration.enforce_registration ? 'yes: requests outside it are refused' : 'no',
            ]])
          : h('p', {}, 'No registration certificate is set (PUT /verifier): requests are not held to one and carry none.'),
        h('p', {}, `Registration: revision ${verifier.revision} `, link('History of the registration', '#/resources/verifier'), ` · Settings: revision ${settings.revision} `, link('History of the settings', '#/resources/settings')),
      );
    } catch (error) {
      showError(registered, error);
    }
  };

  const showConfigurations = async (): Promise<void> => {
    try {
      const { items } = await get<{ items: Envelope[] }>('/credential-configurations');
      configurations.replaceChildren(table('Credential configurations', ['Configuration', 'Format', 'Type (vct or doctype)', 'Revision', 'History'], items.map((c) => {
        const format = typeof c.data['format'] === 'string' ? c.data['format'] : 'dc+sd-jwt';
        return [h('code', {}, String(c.data['id'])), format, String(c.data[format === 'mso_mdoc' ? 'doctype' : 'vct'] ?? ''), String(c.revision), historyLink('credential-configurations', c.id, `History of ${String(c.data['id'])}`)];
      })));
    } catch (error) {
      showError(configurations, error);
    }
  };

  ctx.main.append(
    h('section', {}, h('h2', {}, 'Signing keys'),
      h('p', {}, 'Make a key with POST /signing-keys, have the CSR of a pending key certified, upload the chain (PUT /signing-keys/{id}/certificate), then activate it here: the key it replaces is retired and never signs again. Activation is sent with If-Match: if the key changed since it was loaded, nothing changes and the conflict is shown.'),
      button('Refresh keys', showKeys), keysStatus, keys),
    h('section', {}, h('h2', {}, 'Credential configurations'), configurations),
    h('section', {}, h('h2', {}, 'Registration and settings'), registered),
  );
  await Promise.all([showKeys(), showConfigurations(), showRegistration()]);
};
