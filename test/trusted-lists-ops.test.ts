// `ops trust-lists` and `ops trust-lists refresh`, run as the operator runs them (a separate
// process on the same data directory), against lists served on loopback.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { opsScript, runScript } from './support/processes.js';
import { startTrustWorld } from './support/trustListWorld.js';

const lines = (stdout: string): Record<string, unknown>[] =>
  stdout.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);

test('trust-lists refresh fetches and records every list; trust-lists shows each with its version and state; a failed refresh shows the cached fallback and why', async (t) => {
  const world = await startTrustWorld();
  const dir = await mkdtemp(join(tmpdir(), 'ops-trust-'));
  const ops = (...args: string[]) => runScript(opsScript, [...args, '--json'], { DATA_DIR: dir, X509_TRUST_RESOLUTION_MODE: 'lotl', X509_TRUST_LIST_SOURCES: world.sources });
  try {
    const empty = await ops('trust-lists');
    t.is(empty.code, 1, empty.stderr);
    t.deepEqual(lines(empty.stdout).map((l) => l['state']), ['missing', 'missing']);

    const refreshed = await ops('trust-lists', 'refresh');
    t.is(refreshed.code, 0, refreshed.stderr);
    const listed = lines(refreshed.stdout);
    t.deepEqual(listed.map((l) => [l['source'], l['url'], l['territory'], l['sequence_number'], l['state']]), [
      ['eu-lotl', world.urls.lotl, 'EU', 1, 'current'],
      ['eu-lotl', world.urls.de, 'DE', 7, 'current'],
      ['eu-lotl', world.urls.fr, 'FR', 3, 'current'],
      ['eu-pid', world.urls.lote, 'EU', 1, 'current'],
    ]);
    for (const l of listed) {
      for (const field of ['issued_at', 'next_update', 'fetched_at']) t.false(Number.isNaN(Date.parse(l[field] as string)), field);
    }

    const shown = await ops('trust-lists');
    t.is(shown.code, 0, shown.stderr);
    t.deepEqual(lines(shown.stdout), listed);

    world.server.serve(world.paths.de, { status: 503, body: Buffer.from('down') });
    const failed = await ops('trust-lists', 'refresh');
    t.is(failed.code, 0, failed.stderr);
    const de = lines(failed.stdout).find((l) => l['url'] === world.urls.de)!;
    t.like(de, { state: 'cached fallback', last_failure: 'answered HTTP 503', sequence_number: 7 });
    t.regex(failed.stderr, /"msg":"trust list rejected".*"source":"eu-lotl"/);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await world.close();
  }
});

test('trust-lists in static mode says there is nothing to list', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ops-trust-'));
  try {
    const result = await runScript(opsScript, ['trust-lists'], { DATA_DIR: dir });
    t.is(result.code, 2);
    t.regex(result.stderr, /^trust-lists: X509_TRUST_RESOLUTION_MODE is static/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
