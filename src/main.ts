// The process: read configuration, start, and stop cleanly on SIGTERM or SIGINT. With WORKERS > 1
// this is the primary or one of its workers (src/workers/primary.ts); with 1, the whole service.
import cluster from 'node:cluster';
import { isLeft } from 'fp-ts/lib/Either.js';
import { loadConfig } from './config/config.js';
import { TokenProblem } from './crypto/pkcs11/token.js';
import { createLogger } from './log.js';
import { startService } from './app/service.js';
import { startPrimary } from './workers/primary.js';
import { startWorker } from './workers/worker.js';

// Every file and directory the service makes is given a private mode explicitly; this also
// covers whatever a library might create without one.
process.umask(0o077);
const config = loadConfig(process.env);
if (isLeft(config)) {
  for (const message of config.left) process.stderr.write(`configuration error: ${message}\n`);
  process.exit(1);
}
const worker = config.right.workers > 1 ? cluster.worker : undefined;
const log = createLogger({ level: config.right.logLevel, ...(worker ? { fields: { worker: worker.id } } : {}) });
const start = config.right.workers === 1 ? startService : worker ? startWorker : startPrimary;
const service = await start(config.right, log).catch((err: unknown) => {
  // A key store that cannot be used: one line per problem, like the configuration's (never the PIN).
  if (err instanceof TokenProblem) for (const line of err.message.split('\n')) process.stderr.write(`key store error: ${line}\n`);
  else log.error('start failed', { err });
  process.exit(1);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    log.info('shutting down', { signal });
    service.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error('shutdown failed', { err });
        process.exit(1);
      },
    );
  });
}
