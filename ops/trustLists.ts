// Ops commands for trusted lists (lotl mode): what every list followed holds, and a refresh now.
// The listing is read from the record (each version verified again from the blob store), so it is
// exact whether or not a service runs; a refresh records what it fetches, and a running service
// adopts a version recorded here at its own next refresh.
import type { Config } from '../src/config.js';
import type { EventStore } from '../src/eventstore/port.js';
import { createLogger } from '../src/log.js';
import type { ListStatus } from '../src/trust/trustListStore.js';
import { trustListStoreFromConfig } from '../src/trust/trustResolution.js';

export const trustListsUsage = `  trust-lists
      every trusted list followed (the configured sources and the lists their LoTLs point to):
      sequence number, issue date, next update, fetched at and state, as JSON lines
  trust-lists refresh
      fetches and verifies every list now and records new versions, then lists them as above
`;

const line = (s: ListStatus): string =>
  JSON.stringify({
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

/** Runs a `trust-lists` command; undefined when the command is not one. */
export const runTrustListsCommand = async (
  command: string,
  config: Config,
  store: EventStore,
  out: (line: string) => void,
  usage: (message: string) => Error,
): Promise<number | undefined> => {
  if (command !== 'trust-lists' && command !== 'trust-lists refresh') return undefined;
  if (config.x509TrustResolutionMode !== 'lotl') throw usage('trust-lists: X509_TRUST_RESOLUTION_MODE is static; this instance follows no trusted lists');
  const log = createLogger({ level: 'warn', write: (l) => process.stderr.write(`${l}\n`) });
  // Listed from the record alone, data is not "cached fallback": only a failed fetch here makes it so.
  const lists = await trustListStoreFromConfig(config, store, log, 'ops', new Date(0));
  await lists.load();
  if (command === 'trust-lists refresh') await lists.refresh(new Date());
  const statuses = lists.status(new Date());
  for (const status of statuses) out(line(status));
  return statuses.some((s) => s.state === 'missing' || s.state === 'stale') ? 1 : 0;
};
