// The ops tool: tenants and keys, auditor replay, projection rebuild, usage errors.
import test from 'ava';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './support/bounded.js';
import { opsScript, runScript } from './support/processes.js';
import { startTestService } from './support/service.js';
import { settingsStream } from '../streams/tenantSettings.js';

const ops = (dataDir: string, ...args: string[]) => runScript(opsScript, args, { DATA_DIR: dataDir }, { timeoutMs: 60_000 });

const withDataDir = async (body: (dir: string) => Promise<void>) => {
  const dir = await mkdtemp(join(tmpdir(), 'ops-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/** JSON Lines: one object per line, nothing for an empty listing. */
const jsonLines = <T>(stdout: string): T[] => stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as T);

interface Created {
  tenant_id: string;
  name: string;
  api_key_id: string;
  secret: string;
  scopes: string[];
  expiration: string | null;
}

const createTenant = async (dir: string, ...args: string[]): Promise<Created> => {
  const result = await ops(dir, 'tenants', 'create', '--json', ...args);
  if (result.code !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as Created;
};

test('tenants create prints a secret once that a running service then accepts; api-keys revoke revokes it', async (t) => {
  await withDataDir(async (dir) => {
    const service = await startTestService({ dataDir: dir, env: { BOOTSTRAP_API_KEY: '' } });
    try {
      const created = await createTenant(dir, '--name', 'acme', '--scopes', 'connector');
      t.regex(created.secret, /^ck_[A-Za-z0-9_-]{43}$/);
      t.like(created, { name: 'acme', scopes: ['connector'], expiration: null });
      const tenant = async () => service.management('/tenant', { key: created.secret });
      t.true(await eventually(async () => (await tenant()).status === 200));
      t.like(await (await tenant()).json(), { tenant_id: created.tenant_id, name: 'acme' });
      t.is((await service.management('/admin/projections', { key: created.secret })).status, 403);

      const replay = await ops(dir, 'streams', 'read', `apikey-${created.api_key_id}`, '--json');
      t.false(replay.stdout.includes(created.secret));
      const revoked = await ops(dir, 'api-keys', 'revoke', created.api_key_id, '--json');
      t.is(revoked.code, 0, revoked.stderr);
      t.deepEqual(JSON.parse(revoked.stdout), { api_key_id: created.api_key_id, revoked: true, changed: true });
      t.true(await eventually(async () => (await tenant()).status === 401));
      const again = await ops(dir, 'api-keys', 'revoke', created.api_key_id, '--json');
      t.like(JSON.parse(again.stdout), { revoked: true, changed: false });
    } finally {
      await service.cleanup();
    }
  });
});

test('tenants list and api-keys list show what was created, as a table or JSON Lines, and never a secret', async (t) => {
  await withDataDir(async (dir) => {
    t.is((await ops(dir, 'tenants', 'list', '--json')).stdout, '', 'an empty listing prints nothing');
    const acme = await createTenant(dir, '--name', 'acme');
    const beta = await createTenant(dir, '--name', 'beta', '--scopes', 'resources,connector', '--expires', '2099-01-01T00:00:00+01:00');
    const added = await ops(dir, 'api-keys', 'create', '--tenant', acme.tenant_id, '--scopes', 'admin', '--json');
    t.is(added.code, 0, added.stderr);
    const second = JSON.parse(added.stdout) as Created;
    t.like(second, { tenant_id: acme.tenant_id, scopes: ['admin'], expiration: null });
    t.regex(second.secret, /^ck_/);
    t.is((await ops(dir, 'api-keys', 'revoke', acme.api_key_id)).code, 0);

    const tenants = jsonLines<Record<string, unknown>>((await ops(dir, 'tenants', 'list', '--json')).stdout);
    t.deepEqual(tenants.map((r) => Object.keys(r).sort()), [['created_at', 'name', 'tenant_id'], ['created_at', 'name', 'tenant_id']]);
    t.deepEqual(tenants.map((r) => [r['tenant_id'], r['name']]), [[acme.tenant_id, 'acme'], [beta.tenant_id, 'beta']]);

    const keysResult = await ops(dir, 'api-keys', 'list', '--json');
    const keys = jsonLines<Record<string, unknown>>(keysResult.stdout);
    t.deepEqual(keys.map((k) => Object.keys(k).sort()), Array(3).fill(['api_key_id', 'created_at', 'expiration', 'revoked_at', 'scopes', 'tenant_id']));
    t.like(keys.find((k) => k['api_key_id'] === acme.api_key_id), { tenant_id: acme.tenant_id, scopes: ['admin', 'connector', 'resources'] });
    t.regex(String(keys.find((k) => k['api_key_id'] === acme.api_key_id)?.['revoked_at']), /^\d{4}-\d\d-\d\dT/);
    t.like(keys.find((k) => k['api_key_id'] === beta.api_key_id), { scopes: ['resources', 'connector'], expiration: '2098-12-31T23:00:00.000Z', revoked_at: null });
    const ofAcme = jsonLines<{ api_key_id: string }>((await ops(dir, 'api-keys', 'list', '--tenant', acme.tenant_id, '--json')).stdout);
    t.deepEqual(ofAcme.map((k) => k.api_key_id).sort(), [acme.api_key_id, second.api_key_id].sort());

    const table = (await ops(dir, 'api-keys', 'list')).stdout.trimEnd().split('\n');
    t.regex(table[0]!, /^API_KEY_ID +TENANT_ID +SCOPES +EXPIRATION +CREATED_AT +REVOKED_AT$/);
    t.is(table.length, 4);
    t.regex(table.find((l) => l.startsWith(beta.api_key_id))!, /resources,connector +2098-12-31T23:00:00\.000Z +\S+ +-$/);
    const tenantTable = (await ops(dir, 'tenants', 'list')).stdout.trimEnd().split('\n');
    t.deepEqual(tenantTable.map((l) => l.split(/ +/)[0]), ['TENANT_ID', acme.tenant_id, beta.tenant_id]);

    for (const secret of [acme.secret, beta.secret, second.secret]) t.false(keysResult.stdout.includes(secret) || table.join('\n').includes(secret));
  });
});

test('tenants create without --json prints the fields for a person and says the secret is shown once', async (t) => {
  await withDataDir(async (dir) => {
    const result = await ops(dir, 'tenants', 'create', '--name', 'acme', '--scopes', 'connector');
    t.is(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    t.deepEqual(lines.map((l) => l.split(/ +/)[0]), ['tenant_id', 'name', 'api_key_id', 'scopes', 'expiration', 'secret', 'The']);
    t.regex(lines[5]!, /^secret +ck_[A-Za-z0-9_-]{43}$/);
    t.is(lines[6], 'The secret is shown this once: only its SHA-256 is stored.');
  });
});

test('api-keys create and revoke refuse an unknown tenant or key with exit 2, writing nothing', async (t) => {
  await withDataDir(async (dir) => {
    await createTenant(dir, '--name', 'acme');
    const unknownTenant = await ops(dir, 'api-keys', 'create', '--tenant', 'no-such-tenant');
    t.is(unknownTenant.code, 2);
    t.regex(unknownTenant.stderr, /^refused: .*TenantNotFound/);
    const unknownKey = await ops(dir, 'api-keys', 'revoke', 'no-such-key');
    t.is(unknownKey.code, 2);
    t.regex(unknownKey.stderr, /ApiKeyNotFound/);
    t.is(jsonLines((await ops(dir, 'streams', 'all', '--json')).stdout).length, 2);
  });
});

test('streams read and streams all replay events as JSON Lines, all between two inclusive positions', async (t) => {
  await withDataDir(async (dir) => {
    const created: Created[] = [];
    for (const name of ['a', 'b', 'c']) created.push(await createTenant(dir, '--name', name));
    const stream = await ops(dir, 'streams', 'read', `tenant-${created[1]!.tenant_id}`, '--json');
    const lines = jsonLines<Record<string, unknown>>(stream.stdout);
    t.is(lines.length, 1);
    t.like(lines[0], { stream: `tenant-${created[1]!.tenant_id}`, revision: 0, type: 'TenantCreated', data: { name: 'b' }, metadata: { actor: 'ops' } });
    t.deepEqual(Object.keys(lines[0]!), ['position', 'stream', 'revision', 'id', 'type', 'created', 'data', 'metadata']);

    const all = jsonLines<{ position: string; type: string }>((await ops(dir, 'streams', 'all', '--json')).stdout);
    t.deepEqual(all.map((e) => e.type), ['TenantCreated', 'ApiKeyCreated', 'TenantCreated', 'ApiKeyCreated', 'TenantCreated', 'ApiKeyCreated']);
    const window = jsonLines<{ position: string }>((await ops(dir, 'streams', 'all', '--from', all[1]!.position, '--to', all[3]!.position, '--json')).stdout);
    t.deepEqual(window.map((e) => e.position), all.slice(1, 4).map((e) => e.position));

    // For a person: one line per event, position, stream@revision, time, type and data.
    const readable = (await ops(dir, 'stream', `tenant-${created[2]!.tenant_id}`)).stdout;
    t.regex(readable, new RegExp(`^${all[4]!.position}  tenant-${created[2]!.tenant_id}@0  \\S+Z  TenantCreated  \\{.*"name":"c".*\\}\\n$`));

    const missing = await ops(dir, 'streams', 'read', 'tenant-nope');
    t.is(missing.code, 2);
    t.regex(missing.stderr, /stream tenant-nope does not exist or was deleted/);
  });
});

test('projections rebuild reports its progress in plain lines off a terminal, and what it rebuilt', async (t) => {
  await withDataDir(async (dir) => {
    await createTenant(dir, '--name', 'a');
    const result = await ops(dir, 'projections', 'rebuild', '--json');
    t.is(result.code, 0, result.stderr);
    t.is(result.stderr, 'rebuilding: 2 events applied, checkpoint 2/2 of head 2/2, 0 quarantined\n');
    t.like(JSON.parse(result.stdout), { rebuilt: ['tenants', 'api_keys'], events: 2, checkpoint: '2/2', head: '2/2', quarantined: 0 });
    const status = await ops(dir, 'projections', '--json');
    t.deepEqual(JSON.parse(status.stdout), { checkpoint: '2/2', head: '2/2', quarantine: { total: 0, unacknowledged: 0 } });
    t.regex((await ops(dir, 'projections', 'status')).stdout, /^checkpoint +2\/2\nhead +2\/2\nquarantined +0 \(0 unacknowledged\)\n$/);
  });
});

test('projections status and quarantine list say so, exit 1, when this instance has no read models yet', async (t) => {
  await withDataDir(async (dir) => {
    for (const args of [['projections'], ['projections', 'status', '--json'], ['projections', 'quarantine', 'list']]) {
      const result = await ops(dir, ...args);
      t.is(result.code, 1, args.join(' '));
      t.regex(result.stderr, /^no read models at .*readmodels\.sqlite: start the service, or run projections rebuild$/m);
      t.is(result.stdout, '');
    }
  });
});

test('a wrong command, option or value says what is wrong and exits 2 without writing', async (t) => {
  await withDataDir(async (dir) => {
    const cases: [string[], RegExp][] = [
      [[], /^Usage: ops /],
      [['frobnicate'], /unknown command 'frobnicate'/],
      [['tenants'], /^Usage: ops tenants/],
      [['tenants', 'create'], /required option '--name <name>' not specified/],
      [['tenants', 'create', '--name', 'x', '--scopes', 'root'], /'--scopes <list>' argument 'root' is invalid\. unknown: root; choose from admin, connector, resources/],
      [['tenants', 'create', '--name', 'x', '--expires', '2001-01-01T00:00:00Z'], /--expires .* expected a future ISO 8601 date-time/],
      [['tenants', 'list', '--verbose'], /unknown option '--verbose'/],
      [['api-keys', 'revoke'], /missing required argument 'api-key-id'/],
      [['api-keys', 'revoke', 'a', 'b'], /too many arguments/],
      [['streams', 'all', '--from', 'yesterday'], /'--from <commit\/prepare>' argument 'yesterday' is invalid\. expected COMMIT\/PREPARE/],
      [['projections', 'quarantine', 'ack', 'latest'], /argument 'commit\/prepare'\. expected COMMIT\/PREPARE/],
      [['deliveries', 'list', '--status', 'lost'], /unknown: lost/],
      [['deliveries', 'resend'], /give --delivery ID, or --tenant ID --abandoned/],
      [['deliveries', 'resend', '--delivery', 'x', '--tenant', 'y', '--abandoned'], /give --delivery ID, or --tenant ID --abandoned/],
      [['callbacks', 'set', '--tenant', 't', '--url', 'ftp://example.com/cb'], /--url <url>' argument .* is invalid/],
      [['certificates', 'generate'], /required option '--out <dir>' not specified/],
    ];
    for (const [args, message] of cases) {
      const result = await ops(dir, ...args);
      t.is(result.code, 2, args.join(' '));
      t.regex(result.stderr, message, args.join(' '));
      t.is(result.stdout, '', args.join(' '));
    }
    t.is((await ops(dir, 'streams', 'all', '--json')).stdout, '');
  });
});

test("a refused --url never echoes the URL's user-info, nor a refused --secret its value (exit 2, nothing written)", async (t) => {
  await withDataDir(async (dir) => {
    const acme = await createTenant(dir, '--name', 'acme');
    const password = 'pa55-w0rd';
    const badSecret = "whsec_not'quite-a-secret";
    const cases: [string[], RegExp][] = [
      [['callbacks', 'set', '--tenant', acme.tenant_id, '--url', `https://alice:${password}@hooks.example/cb`], /argument 'https:\/\/\[user-info removed\]@hooks\.example\/cb' is invalid/],
      [['tenants', 'set-authentication', '--tenant', acme.tenant_id, '--url', `https://bob:${password}@login.example/`], /argument 'https:\/\/\[user-info removed\]@login\.example\/' is invalid/],
      [['callbacks', 'set', '--tenant', acme.tenant_id, '--url', 'https://hooks.example/cb', '--secret', badSecret], /option '--secret <secret>' is invalid \(its value is not shown\)/],
    ];
    for (const [args, message] of cases) {
      const result = await ops(dir, ...args);
      t.is(result.code, 2, args.join(' '));
      t.regex(result.stderr, message, args.join(' '));
      for (const secret of [password, 'alice', 'bob', badSecret, 'quite-a-secret']) t.false(result.stderr.includes(secret) || result.stdout.includes(secret), `${args.join(' ')}: ${secret}`);
    }
    const replay = (await ops(dir, 'streams', 'read', settingsStream(acme.tenant_id), '--json')).stdout;
    t.false(/TenantSettingsReplaced/.test(replay));
  });
});

test('callbacks set generates a secret, prints it once and records it sealed; deliveries and the quarantine list as tables', async (t) => {
  await withDataDir(async (dir) => {
    const acme = await createTenant(dir, '--name', 'acme');
    const set = await ops(dir, 'callbacks', 'set', '--tenant', acme.tenant_id, '--url', 'https://integrator.example/hooks');
    t.is(set.code, 0, set.stderr);
    const lines = set.stdout.trimEnd().split('\n');
    t.deepEqual(lines.slice(0, 3), [`tenant_id  ${acme.tenant_id}`, 'url        https://integrator.example/hooks', 'changed    yes']);
    const secret = /^secret +(whsec_\S+)$/.exec(lines[3]!)?.[1];
    t.truthy(secret);
    t.is(lines[4], 'The secret is shown this once: the store holds it sealed.');
    // The tenant's settings hold it (`callback_url`, `callback_secret` sealed), as PUT /settings writes them.
    const replay = (await ops(dir, 'streams', 'read', settingsStream(acme.tenant_id), '--json')).stdout;
    t.regex(replay, /TenantSettingsReplaced/);
    t.regex(replay, /https:\/\/integrator\.example\/hooks/);
    t.false(replay.includes(secret!) || replay.includes(secret!.slice('whsec_'.length)));
    const kept = await ops(dir, 'callbacks', 'set', '--tenant', acme.tenant_id, '--url', 'https://integrator.example/hooks');
    t.is(kept.stdout, `tenant_id  ${acme.tenant_id}\nurl        https://integrator.example/hooks\nchanged    no (already so)\n`);

    t.is((await ops(dir, 'deliveries', 'list')).stdout, 'DELIVERY_ID  TENANT_ID  EVENT  STATE  ATTEMPTS  UPDATED_AT  REASON\n');
    t.is((await ops(dir, 'deliveries', 'list', '--json')).stdout, '');
    const unknown = await ops(dir, 'deliveries', 'resend', '--delivery', 'no-such-delivery', '--json');
    t.is(unknown.code, 1);
    t.deepEqual(JSON.parse(unknown.stdout), { delivery_id: 'no-such-delivery', resent: false, refused: 'DeliveryNotFound' });

    t.is((await ops(dir, 'projections', 'rebuild')).code, 0);
    t.is((await ops(dir, 'projections', 'quarantine', 'list')).stdout, 'POSITION  PROJECTION  TYPE  STREAM  ACKNOWLEDGED  REASON\n');
    t.is((await ops(dir, 'projections', 'quarantine', 'list', '--json')).stdout, '');
    const acknowledged = await ops(dir, 'projections', 'quarantine', 'ack', '1/1');
    t.is(acknowledged.stdout, 'position      1/1\nacknowledged  yes\n');
  });
});

test('certificates generate writes its files without a store, and never over existing ones (exit 1)', async (t) => {
  await withDataDir(async (dir) => {
    const out = join(dir, 'certs');
    const generated = await ops(dir, 'certificates', 'generate', '--out', out, '--cn', 'connector.example', '--json');
    t.is(generated.code, 0, generated.stderr);
    const printed = JSON.parse(generated.stdout) as Record<string, unknown>;
    t.deepEqual(Object.keys(printed), ['dir', 'files', 'client_id', 'trust_anchor']);
    t.like(printed, { dir: out, files: ['ca.pem', 'ca-key.pem', 'certificate.pem', 'key.pem'] });
    t.regex(String(printed['client_id']), /^x509_hash:[A-Za-z0-9_-]{43}$/);
    t.deepEqual((await readdir(dir)).sort(), ['certs'], 'no store was opened');

    const again = await ops(dir, 'certificates', 'generate', '--out', out);
    t.is(again.code, 1);
    t.regex(again.stderr, /a file already exists in .*certs; choose an empty --out/);
    t.is(again.stdout, '');

    const readable = await ops(dir, 'certificates', 'generate', '--out', join(dir, 'other'));
    t.deepEqual(readable.stdout.split('\n').map((l) => l.split(/ +/)[0]), ['dir', 'files', 'client_id', 'trust_anchor', '']);

    // Both certificates name a country (C), DE unless --country says otherwise (ISO 18013-5 wants one for mdoc signers).
    const subjectOf = async (file: string) => new X509Certificate(await readFile(file)).subject.split('\n');
    t.deepEqual(await subjectOf(join(out, 'certificate.pem')), ['C=DE', 'CN=connector.example']);
    t.deepEqual(await subjectOf(join(out, 'ca.pem')), ['C=DE', 'CN=connector.example CA']);
    t.is((await ops(dir, 'certificates', 'generate', '--out', join(dir, 'fr'), '--country', 'FR')).code, 0);
    t.deepEqual(await subjectOf(join(dir, 'fr', 'certificate.pem')), ['C=FR', 'CN=localhost']);
    const bad = await ops(dir, 'certificates', 'generate', '--out', join(dir, 'bad'), '--country', 'Germany');
    t.not(bad.code, 0);
    t.regex(bad.stderr, /country "Germany" is not an ISO 3166-1 alpha-2 code/);
  });
});
