// SIGKILL in the middle of a burst of appends: no acknowledged event is lost, and the read
// models after the restart equal a full rebuild.
import test from 'ava';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countTenants } from '../projections/tenants.js';
import { dumpReadModels, openRunner, openStore } from './support/readmodels.js';

const burstScript = fileURLToPath(new URL('./support/burst.js', import.meta.url));

/** Runs the burst until `acks` appends are acknowledged, then SIGKILLs it; returns the acked ids. */
const burstThenKill = (dir: string, acks: number): Promise<string[]> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [burstScript, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    let killed = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      if (!killed && output.split('\n').length > acks) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') return reject(new Error(`burst ended by itself (${signal})`));
      // Only complete lines were acknowledged; a partial last line is not.
      resolve(output.split('\n').slice(0, -1));
    });
  });

test('SIGKILL during a burst loses no acknowledged event and the read models equal a rebuild', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'crash-'));
  try {
    const acked = await burstThenKill(dir, 300);
    t.true(acked.length >= 300);
    const store = await openStore(dir);
    try {
      const recorded = new Set<string>();
      for (const event of await store.readAll({ maxCount: 1_000_000 })) {
        if (event.type === 'TenantCreated') recorded.add((event.data as { tenantId: string }).tenantId);
      }
      t.deepEqual(acked.filter((id) => !recorded.has(id)), []);

      const restarted = await openRunner(store, join(dir, 'readmodels.sqlite'));
      restarted.start();
      await restarted.whenCaughtUp();
      t.is(countTenants(restarted.db), recorded.size);
      const resumed = await dumpReadModels(restarted.db);
      await restarted.close();

      const rebuilt = await openRunner(store, join(dir, 'rebuilt.sqlite'));
      await rebuilt.rebuild();
      t.deepEqual(resumed, await dumpReadModels(rebuilt.db));
      await rebuilt.close();
    } finally {
      await store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
