// Which adapter: EventStoreDB when a connection string is configured, else the embedded store.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventStore } from './port.js';
import { openSqliteEventStore } from './sqlite.js';

/** Where the store is: EventStoreDB at the connection string, else `events.sqlite` in `dataDir`. */
export interface StoreLocation {
  readonly dataDir: string;
  readonly eventStoreConnectionString?: string | undefined;
}

export const openEventStore = async (location: StoreLocation): Promise<EventStore> => {
  if (location.eventStoreConnectionString) {
    // Loaded only when configured: the embedded default never pays for the gRPC client.
    const { openEventStoreDb } = await import('./esdb.js');
    return openEventStoreDb(location.eventStoreConnectionString);
  }
  await mkdir(location.dataDir, { recursive: true, mode: 0o700 });
  return openSqliteEventStore({ file: join(location.dataDir, 'events.sqlite') });
};

/**
 * The read models live in their own file, always local: they are disposable and rebuilt from the
 * store. Instances sharing one event store each need their own.
 */
export const readModelsFile = (location: { readonly dataDir: string; readonly readModelsFile?: string | undefined }): string =>
  location.readModelsFile ?? join(location.dataDir, 'readmodels.sqlite');
