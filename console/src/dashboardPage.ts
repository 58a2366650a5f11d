// The Dashboard: flows per minute and hour by outcome, pending and abandoned callbacks, trusted-list freshness, certificate expiry.
import { get } from './api.js';
import { h, link, table } from './dom.js';
import { showError } from './views.js';
import { heading, type PageContext, type TrustedLists } from './pages.js';

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
  readonly certificates: readonly {
    readonly role: string;
    readonly owner: 'deployment' | 'tenant';
    readonly key_id?: string;
    readonly subject: string;
    readonly not_after: string;
    readonly expires_soon: boolean;
  }[];
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

const certificateName = (c: Dashboard['certificates'][number]): string =>
  c.owner === 'tenant' ? `the certificate of the tenant's active ${c.role} key ${c.key_id ?? ''}` : `the deployment's ${c.role} certificate`;

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
          ...figures.certificates.filter((c) => c.expires_soon).map((c) => h('p', { class: 'warning', role: 'status' }, `Warning: ${certificateName(c)} expires on ${c.not_after}.`)),
          table('Certificates the connector presents', ['Role', 'Whose', 'Subject', 'Expires', 'Within 30 days'], figures.certificates.map((c) => [
            c.role, c.owner === 'tenant' ? h('span', {}, 'the tenant\'s key ', link(c.key_id ?? '', '#/identity')) : 'the deployment\'s', c.subject, c.not_after, c.expires_soon ? 'yes' : 'no',
          ]))),
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
