// The service as a process: configuration errors, start, SIGTERM.
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mainScript, runScript, startMain } from './support/processes.js';
import { BOOTSTRAP_KEY } from './support/service.js';

test('a bad configuration stops the process with a message naming each bad variable', async (t) => {
  const result = await runScript(mainScript, [], { MANAGEMENT_PORT: 'eighty', PUBLIC_URL: 'ftp://example', DATA_DIR: '/nonexistent' });
  t.is(result.code, 1);
  t.regex(result.stderr, /MANAGEMENT_PORT: .*"eighty"/);
  t.regex(result.stderr, /PUBLIC_URL: /);
});

test('the service starts on the embedded store, serves both listeners and stops on SIGTERM', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'main-'));
  try {
    const service = await startMain({
      DATA_DIR: dataDir,
      MANAGEMENT_PORT: '0',
      PUBLIC_PORT: '0',
      PUBLIC_HOST: '127.0.0.1',
      BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
    });
    t.is((await fetch(`${service.managementUrl}/health`)).status, 200);
    t.is((await fetch(`${service.publicUrl}/health`)).status, 200);
    const tenant = await fetch(`${service.managementUrl}/tenant`, { headers: { Authorization: `Bearer ${BOOTSTRAP_KEY}` } });
    t.is(tenant.status, 200);
    service.exited.catch(() => undefined);
    service.child.kill('SIGTERM');
    t.is(await new Promise((resolve) => service.child.on('exit', resolve)), 0);
    const logged = service.lines.map((line) => JSON.parse(line) as { msg: string; route?: string });
    t.true(logged.some((l) => l.msg === 'stopped'));
    t.true(logged.some((l) => l.msg === 'request' && l.route === '/tenant'));
    t.false(service.lines.join('\n').includes(BOOTSTRAP_KEY));
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
