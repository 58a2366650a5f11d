// Which adapter: EventStoreDB when a connection string is configured, else the embedded store.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { EventStore } from './port.js';
import { openSqliteEventStore } from './sqlite.js';

export const openEventStore = async (config: Pick<Config, 'dataDir' | 'eventStoreConnectionString'>): Promise<EventStore> => {
  if (config.eventStoreConnectionString) {
    // Loaded only when configured: the embedded default never pays for the gRPC client.
    const { openEventStoreDb } = await import('./esdb.js');
    return openEventStoreDb(config.eventStoreConnectionString);
  }
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  return openSqliteEventStore({ file: join(config.dataDir, 'events.sqlite') });
};

/**
 * The read models live in their own file, always local: they are disposable and rebuilt from the
 * store. Instances sharing one event store each need their own.
 */
export const readModelsFile = (config: Pick<Config, 'dataDir' | 'readModelsFile'>): string =>
  config.readModelsFile ?? join(config.dataDir, 'readmodels.sqlite');
