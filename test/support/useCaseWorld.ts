// What a use-case test (no HTTP) runs on: a real embedded store, real read models kept up by a
// running projection runner, and real data keys under a fresh key-encryption key.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { dataKeys as dataKeysOf, type DataKeys } from '../../src/crypto/dataKeys.js';
import { fileKek } from '../../src/crypto/kek.js';
import type { EventStore, Position } from '../../src/eventstore/port.js';
import type { ProjectionRunner } from '../../src/readside/projectionRunner.js';
import { openRunner, withStoreDir } from './readmodels.js';

export interface World {
  readonly dir: string;
  readonly store: EventStore;
  readonly runner: ProjectionRunner;
  readonly dataKeys: DataKeys;
  readonly kek: Buffer;
  /** Waits until the read models hold `position`. */
  readonly read: (position: Position) => Promise<void>;
}

/** Runs `body` in a fresh world (its directory named `prefix`...), then closes and removes it. */
export const withWorld = (prefix: string, body: (world: World) => Promise<void>): Promise<void> =>
  withStoreDir(prefix, async (dir, store) => {
    const runner = await openRunner(store, join(dir, 'read.sqlite'));
    runner.start();
    const kek = randomBytes(32);
    try {
      await body({
        dir,
        store,
        runner,
        kek,
        dataKeys: dataKeysOf(store, fileKek(kek)),
        read: async (position) => {
          if (!(await runner.waitFor(position, 10_000))) throw new Error('read models did not catch up');
        },
      });
    } finally {
      await runner.close();
    }
  });
