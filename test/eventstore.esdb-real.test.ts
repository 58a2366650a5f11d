// The contract against a real EventStoreDB, e.g. EVENTSTORE_CONNECTION_STRING=esdb://localhost:2113?tls=false
// Streams and event types are unique per test, so a shared server with other data is fine.
import test from 'ava';
import { openEventStoreDb } from '../src/eventstore/esdb.js';
import { eventStoreContract } from './eventstore.contract.js';

const connectionString = process.env['EVENTSTORE_CONNECTION_STRING'];

if (connectionString) {
  eventStoreContract('EventStoreDB adapter against a real server', async () => {
    const store = openEventStoreDb(connectionString);
    return { store, cleanup: () => store.close() };
  });
} else {
  console.log('EventStoreDB contract against a real server skipped: EVENTSTORE_CONNECTION_STRING is unset');
  test.skip('contract against a real EventStoreDB (skipped because it needs a server: set EVENTSTORE_CONNECTION_STRING to run it)', (t) => t.pass());
}
