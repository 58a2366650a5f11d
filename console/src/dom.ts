// Building the page with DOM calls only: no HTML strings (nothing a value holds is ever parsed as
// markup) and no inline style (the Content-Security-Policy forbids it).

type Child = Node | string | null | undefined | false;

export const h = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
  return element;
};

let ids = 0;
/** A fresh id for a control and its label. */
export const newId = (prefix: string): string => `${prefix}-${++ids}`;

/** A labelled control: the label names it for assistive technology. */
export const field = (label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): HTMLElement => {
  control.id ||= newId('field');
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control);
};

export const select = (name: string, options: readonly (readonly [string, string])[], selected = ''): HTMLSelectElement => {
  const element = h('select', { name });
  for (const [value, text] of options) element.append(h('option', { value, selected: value === selected }, text));
  return element;
};

export const button = (text: string, onClick: () => void | Promise<void>, kind: 'primary' | 'secondary' = 'secondary'): HTMLButtonElement => {
  const element = h('button', { type: 'button', class: kind }, text);
  element.addEventListener('click', () => void onClick());
  return element;
};

/** A table with a caption and a header row; each row is a list of cells. */
export const table = (caption: string, headings: readonly string[], rows: readonly (readonly Child[])[]): HTMLElement => {
  const body = h('tbody');
  for (const row of rows) body.append(h('tr', {}, ...row.map((cell) => h('td', {}, cell))));
  if (rows.length === 0) body.append(h('tr', {}, h('td', { colspan: String(headings.length) }, 'Nothing to show.')));
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption },
    h('table', {}, h('caption', {}, caption), h('thead', {}, h('tr', {}, ...headings.map((text) => h('th', { scope: 'col' }, text)))), body),
  );
};

export const link = (text: string, href: string): HTMLAnchorElement => h('a', { href }, text);

/** Where a page shows what went wrong: a problem's title and detail, announced. */
export const errorBox = (title: string, detail: string): HTMLElement =>
  h('div', { class: 'error', role: 'alert' }, h('strong', {}, title), detail ? h('p', {}, detail) : null);

/** What every page showing events says about claim values. */
export const claimsNotice = (): HTMLElement =>
  h(
    'p',
    { class: 'notice' },
    'No claim value is ever shown here: presented and issued claims are sealed with a per-flow data key that is destroyed once the flow ends, so they are gone or unreadable by design. Sealed values appear as "[sealed: not shown]".',
  );
