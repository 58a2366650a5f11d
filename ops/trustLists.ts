// `trust-lists [list]|refresh` (lotl mode): what every list followed holds, and a refresh now.
// The listing is read from the record (each version verified again from the blob store), so it is
// exact whether or not a service runs; a refresh records what it fetches, and a running service
// adopts a version recorded here at its own next refresh. Exit 1 when a list is missing or stale.
import type { Command } from 'commander';
import type { Config } from '../src/config/config.js';
import type { EventStore } from '../src/eventstore/port.js';
import type { ListStatus } from '../src/trust/trustListStore.js';
import { trustListStoreFromConfig } from '../src/trust/trustResolution.js';
import { action, DONE, FAILED, log, refuse, withStore, type ExitCode } from './action.js';
import { JSON_OPTION, printListing, type JsonOption } from './output.js';

const row = (s: ListStatus) => ({
  source: s.source,
  url: s.url,
  territory: s.territory ?? null,
  sequence_number: s.sequenceNumber ?? null,
  issued_at: s.issuedAt ?? null,
  next_update: s.nextUpdate ?? null,
  fetched_at: s.fetchedAt ?? null,
  state: s.state,
  ...(s.lastFailure ? { last_failure: s.lastFailure } : {}),
});
type Row = ReturnType<typeof row>;

const showLists = (refresh: boolean) => (options: JsonOption) =>
  withStore(async (store: EventStore, config: Config): Promise<ExitCode> => {
    if (config.x509TrustResolutionMode !== 'lotl') return refuse('trust-lists: X509_TRUST_RESOLUTION_MODE is static; this instance follows no trusted lists');
    // Listed from the record alone, data is not "cached fallback": only a failed fetch here makes it so.
    const lists = await trustListStoreFromConfig(config, store, log, 'ops', new Date(0));
    await lists.load();
    if (refresh) await lists.refresh(new Date());
    const statuses = lists.status(new Date());
    printListing<Row>(options, statuses.map(row), [
      { header: 'SOURCE', cell: (r) => r.source },
      { header: 'TERRITORY', cell: (r) => r.territory ?? '-' },
      { header: 'SEQUENCE', cell: (r) => String(r.sequence_number ?? '-') },
      { header: 'ISSUED_AT', cell: (r) => r.issued_at ?? '-' },
      { header: 'NEXT_UPDATE', cell: (r) => r.next_update ?? '-' },
      { header: 'FETCHED_AT', cell: (r) => r.fetched_at ?? '-' },
      { header: 'STATE', cell: (r) => r.state },
      { header: 'URL', cell: (r) => r.url },
    ]);
    return statuses.some((s) => s.state === 'missing' || s.state === 'stale') ? FAILED : DONE;
  });

export const registerTrustLists = (program: Command): void => {
  const group = program.command('trust-lists').description('trusted lists followed in lotl mode (X509_TRUST_RESOLUTION_MODE=lotl)');
  group
    .command('list', { isDefault: true })
    .description('every list followed (the configured sources and the lists their LoTLs point to): sequence number, issue date, next update, fetched at, state')
    .option(...JSON_OPTION)
    .action(action(showLists(false)));
  group
    .command('refresh')
    .description('fetches and verifies every list now, records new versions, then lists them')
    .option(...JSON_OPTION)
    .action(action(showLists(true)));
};
