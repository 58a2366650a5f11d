// The ops tool: tenants and keys, auditor replay, projection rebuild.
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './support/bounded.js';
import { opsScript, runScript } from './support/processes.js';
import { startTestService } from './support/service.js';

const ops = (dataDir: string, ...args: string[]) => runScript(opsScript, args, { DATA_DIR: dataDir });

const withDataDir = async (body: (dir: string) => Promise<void>) => {
  const dir = await mkdtemp(join(tmpdir(), 'ops-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

interface Created {
  tenant_id: string;
  api_key_id: string;
  secret: string;
  scopes: string[];
}

test('tenant create prints a secret once that a running service then accepts; key delete revokes it', async (t) => {
  await withDataDir(async (dir) => {
    const service = await startTestService({ dataDir: dir, env: { BOOTSTRAP_API_KEY: '' } });
    try {
      const result = await ops(dir, 'tenant', 'create', '--name', 'acme', '--scopes', 'connector');
      t.is(result.code, 0, result.stderr);
      const created = JSON.parse(result.stdout) as Created;
      t.regex(created.secret, /^ck_[A-Za-z0-9_-]{43}$/);
      t.deepEqual(created.scopes, ['connector']);
      const tenant = async () => service.management('/tenant', { key: created.secret });
      t.true(await eventually(async () => (await tenant()).status === 200));
      t.like(await (await tenant()).json(), { tenant_id: created.tenant_id, name: 'acme' });
      t.is((await service.management('/admin/projections', { key: created.secret })).status, 403);

      const replay = await ops(dir, 'stream', `apikey-${created.api_key_id}`);
      t.false(replay.stdout.includes(created.secret));
      const deleted = await ops(dir, 'key', 'delete', created.api_key_id);
      t.is(deleted.code, 0, deleted.stderr);
      t.true(await eventually(async () => (await tenant()).status === 401));
    } finally {
      await service.cleanup();
    }
  });
});

test('stream and all replay events as JSON lines, all between two inclusive positions', async (t) => {
  await withDataDir(async (dir) => {
    const created: Created[] = [];
    for (const name of ['a', 'b', 'c']) created.push(JSON.parse((await ops(dir, 'tenant', 'create', '--name', name)).stdout) as Created);
    const stream = await ops(dir, 'stream', `tenant-${created[1]!.tenant_id}`);
    const lines = stream.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    t.is(lines.length, 1);
    t.like(lines[0], { stream: `tenant-${created[1]!.tenant_id}`, revision: 0, type: 'TenantCreated', data: { name: 'b' }, metadata: { actor: 'ops' } });

    const all = (await ops(dir, 'all')).stdout.trim().split('\n').map((l) => JSON.parse(l) as { position: string; type: string });
    t.deepEqual(all.map((e) => e.type), ['TenantCreated', 'ApiKeyCreated', 'TenantCreated', 'ApiKeyCreated', 'TenantCreated', 'ApiKeyCreated']);
    const window = (await ops(dir, 'all', '--from', all[1]!.position, '--to', all[3]!.position)).stdout.trim().split('\n');
    t.deepEqual(window.map((l) => (JSON.parse(l) as { position: string }).position), all.slice(1, 4).map((e) => e.position));

    const missing = await ops(dir, 'stream', 'tenant-nope');
    t.is(missing.code, 2);
  });
});

test('projections rebuild reports its progress and what it rebuilt', async (t) => {
  await withDataDir(async (dir) => {
    await ops(dir, 'tenant', 'create', '--name', 'a');
    const result = await ops(dir, 'projections', 'rebuild');
    t.is(result.code, 0, result.stderr);
    t.regex(result.stderr, /rebuilding: 2 events applied/);
    t.like(JSON.parse(result.stdout), { rebuilt: ['tenants', 'api_keys'], events: 2 });
  });
});

test('projections status and quarantine list say so, exit 1, when this instance has no read models yet', async (t) => {
  await withDataDir(async (dir) => {
    for (const args of [['projections'], ['projections', 'quarantine', 'list']]) {
      const result = await ops(dir, ...args);
      t.is(result.code, 1, args.join(' '));
      t.regex(result.stderr, /^no read models at .*readmodels\.sqlite: start the service, or run projections rebuild$/m);
      t.is(result.stdout, '');
    }
  });
});

test('a wrong command or option prints the usage and exits 2 without writing', async (t) => {
  await withDataDir(async (dir) => {
    for (const args of [['frobnicate'], ['tenant', 'create'], ['tenant', 'create', '--name', 'x', '--scopes', 'root'], ['all', '--from', 'yesterday'], ['projections', 'quarantine', 'ack', 'latest']]) {
      const result = await ops(dir, ...args);
      t.is(result.code, 2, args.join(' '));
      t.regex(result.stderr, /usage: npm run -s ops/);
    }
    t.is((await ops(dir, 'all')).stdout, '');
  });
});
