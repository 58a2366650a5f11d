// A child process for crash tests: projects like the service does while appending a burst of
// tenants, printing each acknowledged tenant id on its own line. It runs until it is killed.
import { isRight } from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { createTenant } from '../../src/tenancy/commands.js';
import { openRunner, openStore } from './readmodels.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: burst.js DIR');
const store = await openStore(dir);
const runner = await openRunner(store, join(dir, 'readmodels.sqlite'));
runner.start();
for (let i = 0; i < 100_000; i++) {
  const created = await createTenant(store, { name: `burst ${i}` }, { actor: 'burst' });
  if (isRight(created)) process.stdout.write(`${created.right.tenantId}\n`);
}
