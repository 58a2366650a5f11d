import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteEventStore } from '../src/eventstore/sqlite.js';
import { eventStoreContract } from './eventstore.contract.js';

eventStoreContract('embedded SQLite store', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'es-contract-'));
  const store = await openSqliteEventStore({ file: join(dir, 'events.sqlite'), pollIntervalMs: 50 });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
