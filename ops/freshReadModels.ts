// Listings from read models built for the occasion: the given projections replay the whole store
// into a temporary file, which is queried and deleted. They are exact whether or not a service is
// running, and never touch an instance's own read models.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Projection } from '../projections/projection.js';
import type { EventStore } from '../src/eventstore/port.js';
import { ProjectionRunner } from '../src/readside/projectionRunner.js';
import type { Sqlite } from '../src/sqlite/connection.js';
import { log } from './action.js';

export const withFreshReadModels = async <T>(store: EventStore, projections: readonly Projection[], query: (db: Sqlite) => T | Promise<T>): Promise<T> => {
  const dir = await mkdtemp(join(tmpdir(), 'ops-readmodels-'));
  const runner = ProjectionRunner.open({ store, file: join(dir, 'readmodels.sqlite'), projections, log });
  try {
    runner.start();
    await runner.whenCaughtUp();
    return await query(runner.db);
  } finally {
    await runner.close();
    await rm(dir, { recursive: true, force: true });
  }
};
