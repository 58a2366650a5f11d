// A poison event in the store (a draft revision nested deeper than SQLite's JSON functions take,
// appended past the HTTP edge) must not stop the service for anyone: it starts and listens, every
// other tenant reads its own writes, the poisoned resource reads as a clear error, the quarantine
// is listed, a rebuild ends, and an acknowledgment makes the instance ready again. Every wait is
// bounded: before the quarantine, start and rebuild never ended.
import test from 'ava';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isRight } from 'fp-ts/lib/Either.js';
import { formatPosition, type Position } from '../src/eventstore/port.js';
import { openSqliteEventStore } from '../src/eventstore/sqlite.js';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import { bounded } from './support/bounded.js';
import { appendPoisonRevision } from './support/poison.js';
import { opsScript, runScript } from './support/processes.js';
import { startTestService, type TestService } from './support/service.js';

/** Generous: a start or a rebuild over a handful of events takes well under a second. */
const BOUND_MS = 60_000;

type Resource = { id: string; etag: string; revision: number };

/** A JSON request with `key` (the bootstrap tenant's when undefined). */
const send = (s: TestService, method: string, path: string, body: unknown, key?: string, headers: Record<string, string> = {}) =>
  s.management(path, { method, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body), ...(key ? { key } : {}) });

const createDraft = async (s: TestService, key?: string): Promise<Resource> => {
  const response = await send(s, 'POST', '/drafts', { data: { schema: { schema: { type: 'object' } }, values: { name: { kind: 'STRING', value: 'Erika' } } } }, key);
  if (response.status !== 201) throw new Error(`draft not created: ${response.status}`);
  return (await response.json()) as Resource;
};

interface Poisoned {
  readonly dataDir: string;
  /** The bootstrap tenant's draft whose second revision is the poison. */
  readonly draftId: string;
  readonly position: Position;
  /** Another tenant's key, with every scope. */
  readonly otherKey: string;
}

/** A data directory with two tenants, a draft of the first, and a poison revision of that draft. */
const poisonedDataDir = async (): Promise<Poisoned> => {
  const first = await startTestService();
  let draft: Resource;
  let otherKey: string;
  try {
    draft = await createDraft(first);
    const tenant = await createTenant(first.service.store, { name: 'other' }, { actor: 'test' });
    if (!isRight(tenant)) throw new Error('tenant not created');
    const key = await createApiKey(first.service.store, { tenantId: tenant.right.tenantId, scopes: ['admin', 'connector', 'resources'], expiration: null }, { actor: 'test' });
    if (!isRight(key)) throw new Error('key not created');
    otherKey = key.right.secret;
  } finally {
    await first.stop();
  }
  const store = await openSqliteEventStore({ file: join(first.dataDir, 'events.sqlite') });
  const position = await appendPoisonRevision(store, draft.id);
  await store.close();
  return { dataDir: first.dataDir, draftId: draft.id, position, otherKey };
};

const ops = (dataDir: string, ...args: string[]) => runScript(opsScript, args, { DATA_DIR: dataDir }, { timeoutMs: BOUND_MS });

const readiness = async (response: Response) => ({
  status: response.status,
  body: (await response.json()) as { status: string; checks: { name: string; ok: boolean; detail?: string }[] },
});

test('over a poison event the service starts and listens, other tenants read their writes, the poisoned resource is a 503', async (t) => {
  const poisoned = await poisonedDataDir();
  const s = await bounded(startTestService({ dataDir: poisoned.dataDir }), BOUND_MS, 'the service did not start over a poison event');
  try {
    t.is((await s.wallet('/health/live')).status, 200);
    const ready = await readiness(await s.management('/health/ready', { key: null }));
    t.is(ready.status, 503);
    t.deepEqual(ready.body.checks.filter((c) => !c.ok).map((c) => c.name), ['quarantine']);

    // Another tenant writes and reads back, before and after a change (read-your-writes).
    const other = await createDraft(s, poisoned.otherKey);
    t.is((await s.management(`/drafts/${other.id}`, { key: poisoned.otherKey })).status, 200);
    const patched = await send(s, 'PATCH', `/drafts/${other.id}`, { data: { type: ['X'] } }, poisoned.otherKey, { 'If-Match': other.etag });
    t.is(patched.status, 200);
    const reread = (await (await s.management(`/drafts/${other.id}`, { key: poisoned.otherKey })).json()) as Resource;
    t.is(reread.revision, 2);
    // So does the poisoned draft's own tenant, with its other resources.
    const mine = await createDraft(s);
    t.is((await s.management(`/drafts/${mine.id}`)).status, 200);

    for (const path of [`/drafts/${poisoned.draftId}`, `/drafts/${poisoned.draftId}/history`, `/drafts/${poisoned.draftId}/revisions/1`]) {
      const response = await s.management(path);
      t.is(response.status, 503, path);
      t.is(response.headers.get('content-type'), 'application/problem+json');
      t.like(await response.json(), { type: '/problems/resource-unavailable', status: 503 });
    }
    // Another tenant learns nothing of it: the 404 of any id not its own.
    t.is((await s.management(`/drafts/${poisoned.draftId}`, { key: poisoned.otherKey })).status, 404);

    const projections = (await (await s.management('/admin/projections')).json()) as {
      caughtUp: boolean;
      failing: string | null;
      quarantine: { total: number; unacknowledged: number; entries: Record<string, unknown>[] };
    };
    t.like(projections, { caughtUp: true, failing: null, quarantine: { total: 1, unacknowledged: 1 } });
    t.like(projections.quarantine.entries[0], { projection: 'resources', position: formatPosition(poisoned.position), type: 'DraftUpdated', acknowledged: false });
    t.regex(String(projections.quarantine.entries[0]?.['reason']), /malformed JSON/);
    t.false('stream' in projections.quarantine.entries[0]!, 'stream names stay with the operator');
  } finally {
    await s.cleanup();
  }
});

test('ops lists the quarantined event, a rebuild over it ends with its progress, and an acknowledgment makes the instance ready', async (t) => {
  const poisoned = await poisonedDataDir();
  try {
    const rebuilt = await ops(poisoned.dataDir, 'projections', 'rebuild', '--json');
    t.is(rebuilt.code, 0, rebuilt.stderr);
    const summary = JSON.parse(rebuilt.stdout) as { checkpoint: string; head: string; quarantined: number; events: number };
    t.is(summary.quarantined, 1);
    t.is(summary.checkpoint, summary.head);
    t.regex(rebuilt.stderr, new RegExp(`rebuilding: ${summary.events} events applied, checkpoint ${summary.head} of head ${summary.head}, 1 quarantined`));

    const status = await ops(poisoned.dataDir, 'projections', '--json');
    t.like(JSON.parse(status.stdout), { checkpoint: summary.head, head: summary.head, quarantine: { total: 1, unacknowledged: 1 } });
    const listed = await ops(poisoned.dataDir, 'projections', 'quarantine', 'list', '--json');
    const entries = listed.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    t.is(entries.length, 1);
    t.like(entries[0], { projection: 'resources', position: formatPosition(poisoned.position), stream: `draft-${poisoned.draftId}`, type: 'DraftUpdated', acknowledged: false });

    t.is((await ops(poisoned.dataDir, 'projections', 'quarantine', 'ack', '999999/999999')).code, 2, 'no event there');
    const acknowledged = await ops(poisoned.dataDir, 'projections', 'quarantine', 'ack', formatPosition(poisoned.position));
    t.is(acknowledged.code, 0, acknowledged.stderr);

    const s = await bounded(startTestService({ dataDir: poisoned.dataDir }), BOUND_MS, 'the service did not start over a poison event');
    try {
      const ready = await readiness(await s.wallet('/health/ready'));
      t.is(ready.status, 200, JSON.stringify(ready.body));
      t.is((await s.management(`/drafts/${poisoned.draftId}`)).status, 503, 'acknowledged, the resource is still without its event');
    } finally {
      await s.stop();
    }
  } finally {
    await rm(poisoned.dataDir, { recursive: true, force: true });
  }
});
