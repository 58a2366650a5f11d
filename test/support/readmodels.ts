// Opens a store and a projection runner over a directory, and dumps read models for comparison.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allProjections } from '../../projections/index.js';
import type { Projection } from '../../projections/projection.js';
import type { EventStore } from '../../src/eventstore/port.js';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.js';
import { silentLogger } from '../../src/log.js';
import { ProjectionRunner } from '../../src/readside/projectionRunner.js';
import type { Sqlite } from '../../src/sqlite/connection.js';

export const openStore = (dir: string): Promise<EventStore> =>
  openSqliteEventStore({ file: join(dir, 'events.sqlite'), pollIntervalMs: 20 });

/** Runs `body` with an embedded store in a fresh directory (named `prefix`...), then removes both. */
export const withStoreDir = async (prefix: string, body: (dir: string, store: EventStore) => Promise<void>): Promise<void> => {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const store = await openStore(dir);
  try {
    await body(dir, store);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
};

export const openRunner = (store: EventStore, file: string, projections: readonly Projection[] = allProjections) =>
  ProjectionRunner.open({ store, file, projections, log: silentLogger });

/** Every row of every table the projections own, in a stable order. */
export const dumpReadModels = async (db: Sqlite, projections: readonly Projection[] = allProjections) => {
  const dump: Record<string, string[]> = {};
  for (const table of projections.flatMap((p) => p.tables)) {
    dump[table] = db.all(`SELECT * FROM "${table}"`).map((row) => JSON.stringify(row)).sort();
  }
  return dump;
};
