// The image's build, without a container engine: ops/build-release.sh (the script the Dockerfile's
// build stage runs) in a clean clone of this repository at HEAD: npm ci, the build, production
// dependencies only. Then what the image would run, from that pruned clone: the service on the
// embedded store on loopback ports until GET /health/ready answers, the image's health probe, the
// callback receiver of compose.yaml, and the demo (the wallet simulator of wallet/) playing an
// issuance and a verification end to end against it, their callbacks received and verified.
//
// Slow by nature: npm ci compiles the native modules (better-sqlite3, pkcs11js), a minute or two
// on a quiet machine and several on a loaded one; it reuses npm's cache (prefer-offline). Hence
// the generous time limit of this one test.
import test from 'ava';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runScript, startMain, startReceiveScript } from './support/processes.js';
import { TEST_WEBHOOK_SECRET } from './support/receiver.js';
import { BOOTSTRAP_KEY, withReachablePublicUrl } from './support/service.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** npm ci with native compilation on a loaded 2-core machine, the build, the prune, then the flows. */
const TIME_LIMIT_MS = 25 * 60_000;

interface Ran {
  readonly code: number | null;
  readonly output: string;
}

/**
 * Runs a command to its end without blocking this process (ava must hear of the test's own time
 * limit meanwhile). It leads a process group of its own, killed whole when this process exits or
 * `limitMs` passes, so no npm or compiler outlives a failed test.
 */
const runCommand = (command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; limitMs: number }): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    process.once('exit', killGroup);
    const limit = setTimeout(killGroup, options.limitMs);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(limit);
      process.removeListener('exit', killGroup);
      resolve({ code, output });
    });
  });

/** A loopback port nothing listens on (it was free a moment ago). */
const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
};

const until = async (condition: () => Promise<boolean> | boolean, attempts = 600): Promise<boolean> => {
  for (let i = 0; i < attempts; i++) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return condition();
};

test('the release build of a clean clone, pruned to production dependencies, starts on the embedded store and serves an issuance and a verification end to end', async (t) => {
  t.timeout(TIME_LIMIT_MS, 'npm ci compiles native modules: see the time limit at the top of this file');
  const work = mkdtempSync(join(tmpdir(), 'release-build-'));
  try {
    const clone = join(work, 'clone');
    const cloned = await runCommand('git', ['clone', '--quiet', root, clone], { cwd: work, env: process.env, limitMs: 60_000 });
    t.is(cloned.code, 0, cloned.output);

    const build = await runCommand('sh', [join(clone, 'ops', 'build-release.sh')], {
      cwd: work,
      env: { ...process.env, npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' },
      limitMs: TIME_LIMIT_MS,
    });
    t.is(build.code, 0, build.output);
    // Production dependencies only, the native ones built; no compiled tests.
    for (const development of ['ava', 'typescript', 'dclint', '@owf/mdoc']) t.false(existsSync(join(clone, 'node_modules', development)), development);
    for (const native of ['better-sqlite3', 'pkcs11js']) t.true(existsSync(join(clone, 'node_modules', native, 'build', 'Release')), native);
    t.false(existsSync(join(clone, 'dist', 'test')));
    t.false(existsSync(join(clone, 'dist', 'bench')));

    const receiver = await startReceiveScript(
      { CALLBACK_SECRET: TEST_WEBHOOK_SECRET, RECEIVER_HOST: '127.0.0.1', RECEIVER_PORT: '0' },
      join(clone, 'dist', 'demo', 'receive.js'),
    );
    const dataDir = join(work, 'data');
    const service = await withReachablePublicUrl((publicEnv) =>
      startMain(
        {
          DATA_DIR: dataDir,
          MANAGEMENT_HOST: '127.0.0.1',
          MANAGEMENT_PORT: '0',
          PUBLIC_HOST: '127.0.0.1',
          ...publicEnv,
          BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
          CALLBACK_URL: receiver.url,
          CALLBACK_SECRET: TEST_WEBHOOK_SECRET,
        },
        join(clone, 'dist', 'src', 'main.js'),
      ),
    );
    try {
      t.true(await until(async () => (await fetch(`${service.managementUrl}/health/ready`)).status === 200), 'GET /health/ready answers 200');

      // The image's HEALTHCHECK: ready here, and not where nothing listens.
      const managementPort = new URL(service.managementUrl).port;
      const probe = (port: string) => runScript(join(clone, 'dist', 'ops', 'healthcheck.js'), [], { MANAGEMENT_HOST: '0.0.0.0', MANAGEMENT_PORT: port });
      t.is((await probe(managementPort)).code, 0);
      const closed = await probe(String(await closedPort()));
      t.is(closed.code, 1);
      t.regex(closed.stderr, /^not ready: http:\/\/127\.0\.0\.1:\d+\/health\/ready: /);

      // An issuance (offer, token, credential) and a verification (request, signed request object,
      // encrypted response), the wallet being wallet/ as pruned.
      const demo = await runScript(join(clone, 'dist', 'demo', 'run.js'), ['--connector', service.managementUrl, '--api-key', BOOTSTRAP_KEY], { TMPDIR: work }, { timeoutMs: 5 * 60_000 });
      t.is(demo.code, 0, `${demo.stdout}\n${demo.stderr}`);
      t.regex(demo.stdout, /credential endpoint: an SD-JWT VC, signed by its x5c leaf, bound to the holder key/);
      t.regex(demo.stdout, /request object verified: ES256 signature by the x5c leaf/);
      const statuses = () => receiver.callbacks.map((callback) => callback.body.status);
      t.true(
        await until(() => ['OFFER_CREATED', 'ISSUED', 'FULFILLED'].every((status) => statuses().includes(status))),
        `callbacks received and verified: ${statuses().join(', ')}`,
      );

      service.child.kill('SIGTERM');
      t.is(await service.exited, 0);
      t.true(service.lines.some((line) => line.includes('"msg":"stopped"')));
    } finally {
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
      receiver.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
