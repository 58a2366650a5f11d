// How a command's action runs: the exit code it ends with and the store it works on, opened from
// the service's own environment variables so that the tool can run beside a live instance.
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import { loadConfig, type Config } from '../src/config/config.js';
import { openEventStore } from '../src/eventstore/open.js';
import type { EventStore } from '../src/eventstore/port.js';
import { createLogger } from '../src/log.js';

/** 0 done; 1 failed (the store, a rebuild, a refused re-send, a file in the way); 2 bad input, refused, changed nothing. */
export type ExitCode = 0 | 1 | 2;
export const DONE: ExitCode = 0;
export const FAILED: ExitCode = 1;
export const REFUSED: ExitCode = 2;

/** Recorded on every event the tool appends. */
export const metadata = { actor: 'ops' };

/** Warnings (a key-encryption key file in DATA_DIR, a read model failing) go to stderr, apart from the output. */
export const log = createLogger({ level: 'warn', write: (line) => process.stderr.write(`${line}\n`) });

/** Says on stderr why the input was refused; the exit code of a refusal. */
export const refuse = (message: string): ExitCode => {
  process.stderr.write(`${message}\n`);
  return REFUSED;
};

/** A command the domain refused (an unknown tenant, a missing key): nothing was written. */
export const refusedBy = (reason: { readonly _tag: string }): ExitCode => refuse(`refused: ${JSON.stringify(reason)}`);

/** A commander action that ends the process with the exit code `body` returns. */
export const action =
  <A extends unknown[]>(body: (...args: A) => Promise<ExitCode>) =>
  async (...args: A): Promise<void> => {
    process.exitCode = await body(...args);
  };

/** Runs `body` with the settings `load` reads from the environment; FAILED, saying why, when they are invalid. */
export const withSettings = async <S>(load: (env: NodeJS.ProcessEnv) => Either<string[], S>, body: (settings: S) => Promise<ExitCode>): Promise<ExitCode> => {
  const settings = load(process.env);
  if (isLeft(settings)) {
    for (const message of settings.left) process.stderr.write(`configuration error: ${message}\n`);
    return FAILED;
  }
  return body(settings.right);
};

/** Runs `body` with the service's configuration; FAILED, saying why, when it is invalid. */
export const withConfig = (body: (config: Config) => Promise<ExitCode>): Promise<ExitCode> => withSettings(loadConfig, body);

/** Runs `body` on the configured store, closed afterwards whatever happens. */
export const withStore = (body: (store: EventStore, config: Config) => Promise<ExitCode>): Promise<ExitCode> =>
  withConfig(async (config) => {
    const store = await openEventStore(config);
    try {
      return await body(store, config);
    } finally {
      await store.close();
    }
  });
